"""What both runs' observers share: the --run Observer (step counting, crashes, the time limit) plus the hooks
of torch_hooks.py / tf_hooks.py, and the events those hooks send."""
from hvdkit.check.run.observer import Observer


class Hooks:
    """bootstrap.install_import_hook's `extra`: --against's hooks, put on after --run's."""

    @staticmethod
    def torch(torch, obs):
        from hvdkit.check.against import torch_hooks
        torch_hooks.install(torch, obs)

    @staticmethod
    def tf(tf, keras, obs):
        from hvdkit.check.against import tf_hooks
        tf_hooks.install(tf, keras, obs)


class Base(Observer):
    keeps_sources = False   # the recording run digests the rows of from_tensor_slices sources (step 3's report)

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.fw = None          # torch_hooks.Adapter or tf_hooks.Adapter, once the script imports its framework
        self.ghost = None       # the ranks' batch sizes at this step, for batch norm (replaying run)
        self.fit = False        # the script trains with Keras fit
        self.layers_off = []    # dropout and noise layers made the identity

    def on_simulated_layer(self, what):
        if what not in self.layers_off:
            self.layers_off.append(what)

    def on_training_forward(self):
        """A training forward pass (or an eager GradientTape) is starting."""

    def on_yield(self, element, meta):
        """A batch from the script's data pipeline; returns the batch the script gets."""
        return element

    def fit_batches(self, dataset, meta):
        """Keras fit's first batches, put in front of `dataset`."""
        return []

    def before_step(self, lr=None):
        if lr is not None and self.rec.lr is None:
            self.rec.lr = lr
        if self.fw is not None and hasattr(self.fw, "before_compiled_step"):
            self.fw.before_compiled_step()
