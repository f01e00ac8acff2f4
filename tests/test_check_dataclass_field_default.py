"""Step 4: a dataclass field the config's call does not give takes its declared default.

`batch_size: int = GLOBAL_BATCH // hvd.size()` in the project's config, and the entry script building
`TrainConfig(data=..., learning_rate=args.lr)` without it: each rank's batch is the global batch's share, the
global batch is fixed, and the unscaled LR is right. Given `batch_size=args.batch_size` (a per-rank batch),
the global batch grows with the ranks and the same LR is flagged. Written from scratch for these tests: a
Keras diffusion-style project whose config and data module live in a package."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Denoiser.  horovodrun -np 4 python train.py --epochs 20"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow.keras as hvd

    from noisy.config import TrainConfig
    from noisy.data import make_dataset


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--epochs", type=int, default=20)
        ap.add_argument("--lr", type=float, default=2e-4)
        ap.add_argument("--batch-size", type=int, default=32)
        args = ap.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        cfg = TrainConfig(epochs=args.epochs, learning_rate=args.lr{given})
        ds, steps = make_dataset(cfg.batch_size)
        model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(16)])
        model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg.learning_rate)),
                      loss="mse")
        callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
        if hvd.rank() == 0:
            callbacks.append(keras.callbacks.ModelCheckpoint("denoiser.keras"))
        model.fit(ds, steps_per_epoch=steps, epochs=cfg.epochs, callbacks=callbacks, verbose=hvd.rank() == 0)


    if __name__ == "__main__":
        main()
'''

CONFIG = '''
    from dataclasses import dataclass

    import horovod.tensorflow.keras as hvd

    GLOBAL_BATCH = 256


    @dataclass
    class TrainConfig:
        epochs: int = 20
        learning_rate: float = 2e-4
        batch_size: int = GLOBAL_BATCH // hvd.size()
'''

DATA = '''
    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow.keras as hvd


    def make_dataset(batch_size):
        x = np.random.default_rng(0).normal(size=(8192, 16)).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices((x + 0.1, x)).shard(hvd.size(), hvd.rank())
        steps = len(x) // (batch_size * hvd.size())
        return ds.shuffle(2048).repeat().batch(batch_size), steps
'''

def step4(tmp_path, given=""):
    files = {"train.py": ENTRY.replace("{given}", given), "noisy/__init__.py": "", "noisy/config.py": CONFIG,
             "noisy/data.py": DATA}
    return check_project(tmp_path, files)[2][4]


def test_a_field_defaulting_to_the_global_batchs_share_fixes_the_global_batch(tmp_path):
    f = step4(tmp_path)
    assert f.verdict == OK and "global batch is fixed" in f.evidence, f


def test_a_per_rank_batch_given_to_the_config_needs_the_lr_scaled(tmp_path):
    assert step4(tmp_path, ", batch_size=args.batch_size").verdict in FLAGGED
