"""Registries: `OPTIMIZERS.create(cfg["optimizer"])` looks the builder up by name
(`self._builders[name](...)`) among the functions registered with `@OPTIMIZERS.register("adam")`, in a
package that re-exports the registry (`from .registry import OPTIMIZERS` in its __init__). The registered
builders run there, so one that returns `hvd.DistributedOptimizer(...)` averages the gradients (ok), and
one that returns the plain optimizer does not (flagged).

Written from scratch for these tests: a TF / Keras 3 `fit` project built on a registry, the shape of
config-driven research code."""
import textwrap

from hvdkit.check import FLAGGED, OK
from hvdkit.check.static import analyze

REGISTRY = '''
    class Registry:
        """name -> builder; `create({"name": ..., **kwargs})` builds one."""

        def __init__(self, what):
            self.what, self._builders = what, {}

        def register(self, key):
            def add(builder):
                self._builders[key] = builder
                return builder
            return add

        def create(self, cfg):
            kwargs = {k: v for k, v in cfg.items() if k != "name"}
            return self._builders[cfg["name"]](**kwargs)


    OPTIMIZERS = Registry("optimizer")
'''

OPTIMIZERS = '''
    import horovod.tensorflow.keras as hvd
    import keras

    from .registry import OPTIMIZERS


    @OPTIMIZERS.register("adam")
    def adam(lr):
        return {made}
'''

INIT = '''
    from .registry import OPTIMIZERS  # noqa: F401
    from . import optimizers  # noqa: F401
'''

MAIN = '''
    """Tabular risk model.  horovodrun -np 4 python main.py"""
    import numpy as np
    import keras
    import horovod.tensorflow.keras as hvd

    from riskkit import OPTIMIZERS

    CONF = {"optimizer": {"name": "adam", "lr": 1e-3}}

    hvd.init()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8192, 20)).astype("float32")
    y = (x[:, 0] > 0).astype("float32")
    x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=OPTIMIZERS.create(CONF["optimizer"]), loss="binary_crossentropy")
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint("risk.keras"))
    model.fit(x, y, batch_size=64, epochs=5, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
'''


def step5(tmp_path, made):
    pkg = tmp_path / "riskkit"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(INIT))
    (pkg / "registry.py").write_text(textwrap.dedent(REGISTRY))
    (pkg / "optimizers.py").write_text(textwrap.dedent(OPTIMIZERS.replace("{made}", made)))
    (tmp_path / "main.py").write_text(textwrap.dedent(MAIN).lstrip("\n"))
    findings, _, _ = analyze(str(tmp_path / "main.py"), root=str(tmp_path))
    return findings[5]


def test_a_registered_builder_that_wraps_the_optimizer_averages(tmp_path):
    f = step5(tmp_path, "hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr * hvd.size()))")
    assert f.verdict == OK and "DistributedOptimizer" in f.evidence, f


def test_a_registered_builder_returning_the_plain_optimizer_is_flagged(tmp_path):
    f = step5(tmp_path, "keras.optimizers.Adam(learning_rate=lr * hvd.size())")
    assert f.verdict in FLAGGED, f
