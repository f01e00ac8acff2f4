"""Step 4: a configuration object whose method scales the LR and gives the object back
(`cfg = RunConfig(...).adapt(hvd.size())` with `self.lr = self.lr * world` and `return self`). The script
that multiplies `cfg.lr` by hvd.size() once more trains with size**2 times the base LR; one that uses
`cfg.lr` as it is is scaled; a method that leaves the LR alone leaves it unscaled.

Written from scratch for these tests: an entry script and a `runcfg` package."""
import textwrap

from crash_scripts import check_project
from hvdkit.check import MISSING, OK, WRONG

CONFIG = '''
    from dataclasses import dataclass


    @dataclass
    class RunConfig:
        data: str = "data/fields.h5"
        epochs: int = 12
        lr: float = 2e-3
        momentum: float = 0.9

        def adapt(self, world):
            """Single-GPU settings made the job's."""
            {body}
            self.world = world
            return self
'''

TRAIN = '''
    """Field regression.  horovodrun -np 8 python train.py"""
    import keras
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd

    from runcfg.config import RunConfig

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    cfg = RunConfig(epochs=20).adapt(hvd.size())
    x, y = np.random.rand(4096, 32).astype("float32"), np.random.rand(4096, 1).astype("float32")
    x, y = x[hvd.rank()::hvd.size()], y[hvd.rank()::hvd.size()]
    model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
    opt = keras.optimizers.SGD(learning_rate={lr}, momentum=cfg.momentum)
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse")
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint("fields.weights.h5", save_weights_only=True))
    model.fit(x, y, batch_size=32, epochs=cfg.epochs, callbacks=cbs, verbose=2 if hvd.rank() == 0 else 0)
'''


def step4(tmp_path, body, lr):
    files = {"train.py": TRAIN.replace("{lr}", lr), "setup.py": "", "runcfg/__init__.py": "",
             "runcfg/config.py": CONFIG.replace("{body}", body)}
    _, _, findings = check_project(tmp_path, {k: textwrap.dedent(v).lstrip("\n") for k, v in files.items()})
    return findings[4]


def test_scaled_in_the_config_method_and_again_in_the_script_is_twice(tmp_path):
    f = step4(tmp_path, "self.lr = self.lr * world", "cfg.lr * hvd.size()")
    assert f.verdict == WRONG and "twice" in f.evidence, f


def test_scaled_in_the_config_method_alone_is_scaled(tmp_path):
    assert step4(tmp_path, "self.lr = self.lr * world", "cfg.lr").verdict == OK


def test_a_method_that_leaves_the_lr_alone_leaves_it_unscaled(tmp_path):
    assert step4(tmp_path, "self.momentum = min(self.momentum, 0.95)", "cfg.lr").verdict == MISSING
