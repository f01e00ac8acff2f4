"""What the observers of `--against` need from TensorFlow / Keras 3: trained variables in and out, the
optimizers' LRs and state, batches as numpy, and the variables the hooks' traced code writes.

Variables of its own (the loss, the override LR, the ghost sizes) are made only in eager code just before
a step, never at import: making one initialises the devices, after which a script's GPU pinning fails.
"""
import itertools

from hvdkit.check.against import store


class Adapter:
    forward_before_step = False  # steps are counted around the compiled step (or at an eager tape's start)

    def __init__(self, tf, keras, obs):
        self.tf, self.keras, self.obs = tf, keras, obs
        self.losses = []
        self.vars = {}   # name -> tf.Variable made by make_var (eagerly)
        self.sync_bn = False
        self.source_rows = []   # row digests of each from_tensor_slices source (recording run)

    def make_var(self, name, value, dtype):
        if name not in self.vars:
            with self.tf.init_scope():
                self.vars[name] = self.tf.Variable(value, dtype=dtype, trainable=False)
        return self.vars[name]

    def to_numpy(self, element):
        return store.to_numpy(element, lambda x: x.numpy().copy() if hasattr(x, "numpy") else None)

    def from_numpy(self, struct):
        return store.from_numpy(struct, self.tf.convert_to_tensor)

    def params(self):
        return self.obs.params() if self.obs.params else []

    def names(self):
        return [getattr(v, "path", None) or v.name for v in self.params()]

    def tensors(self):
        return [v.numpy().copy() for v in self.params()]

    def load(self, arrays):
        for v, a in zip(self.params(), arrays):
            v.assign(a)

    def optimizers(self):
        return self.obs.optimizers() if self.obs.optimizers else []

    def lrs(self):
        return [_own_lr(o) for o in self.optimizers()]

    def built_lrs(self):
        return [getattr(o, "_hvdkit_built_lr", None) or _own_lr(o) for o in self.optimizers()]

    def set_lrs(self, values):
        """Set each optimizer's LR for the coming step: a variable LR is assigned (a compiled step reads it
        when it runs, however long ago it was traced); a schedule is put behind an OverrideLR (before the
        first step: a step traced earlier keeps calling the schedule)."""
        for i, (o, v) in enumerate(zip(self.optimizers(), itertools.cycle(values))):
            if v is None:
                continue
            if isinstance(o._learning_rate, self.keras.Variable):
                o._learning_rate.assign(float(v))
                continue
            var = self.make_var(f"lr{i}", float(v), "float32")
            var.assign(float(v))
            if not isinstance(o._learning_rate, OverrideLR):
                o._learning_rate = OverrideLR(o._learning_rate, var)

    def _slots(self, o):
        return [v for v in o.variables if not (getattr(v, "path", "") or v.name).endswith("learning_rate")]

    def opt_state(self):
        return [v.numpy().copy() for o in self.optimizers() for v in self._slots(o)]

    def load_opt_state(self, saved):
        mine = [v for o in self.optimizers() for v in self._slots(o)]
        if len(mine) != len(saved) or any(tuple(v.shape) != a.shape for v, a in zip(mine, saved)):
            return False
        for v, a in zip(mine, saved):
            v.assign(a)
        return True

    def take_losses(self):
        out = list(self.losses)
        self.losses = []
        stash = self.vars.get("loss")
        if stash is not None and bool(self.vars["loss_set"].numpy()):
            out.append(float(stash.numpy()))
            self.vars["loss_set"].assign(False)
        return out

    def uses_sync_bn(self):
        return self.sync_bn

    def optimizer_kinds(self):
        return sorted({type(o).__name__ for o in self.optimizers()})

    def before_compiled_step(self):
        """Eager, just before a call that may step: the variables a traced step writes must exist by now."""
        self.make_var("loss", 0.0, "float32")
        self.make_var("loss_set", False, "bool")
        if self.obs.ghost and len(self.obs.ghost) > 1:
            self.make_var("ghost", list(self.obs.ghost), "int32").assign(list(self.obs.ghost))


class OverrideLR:
    """The optimizer's LR in the replaying run: the Horovod run's, from a variable set before each step.
    Keeps the script's own value or schedule (`own`), which is what the sequential script would have used."""

    def __init__(self, own, var):
        self.own, self.var = own, var

    def __call__(self):
        return self.var

    def assign(self, value):  # the script sets `opt.learning_rate = x`: that is its own LR
        if hasattr(self.own, "assign"):
            self.own.assign(value)
        else:
            self.own = value


def _own_lr(o):
    lr = o._learning_rate
    lr = lr.own if isinstance(lr, OverrideLR) else lr
    try:
        if hasattr(lr, "numpy"):
            return float(lr.numpy())
        if callable(lr):
            from keras.src.optimizers.schedules.learning_rate_schedule import LearningRateSchedule
            return float(lr(o.iterations) if isinstance(lr, LearningRateSchedule) else lr())
        return float(lr)
    except (TypeError, ValueError):
        return None


def optimizer_built(keras, obs):
    """The LR an optimizer was built with (a float or variable; a schedule's target or start)."""
    from importlib import import_module
    base = import_module("keras.src.optimizers.base_optimizer").BaseOptimizer
    init = base.__init__

    def observed_init(self, learning_rate=0.001, *a, **k):
        init(self, learning_rate, *a, **k)
        value = None
        for attr in ("target_lr", "initial_learning_rate"):
            value = value if value is not None else getattr(learning_rate, attr, None)
        try:
            value = float(value if value is not None else learning_rate)
        except (TypeError, ValueError):
            value = None
        self._hvdkit_built_lr = value
    base.__init__ = observed_init
