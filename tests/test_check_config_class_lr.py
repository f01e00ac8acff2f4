"""Step 4: a config class that records the number of ranks is no LR schedule.

`cfg = RunConfig()` whose `__init__` sets `self.world_size = hvd.size()` (to print the global batch) and
`self.lr = 1e-3`: the LR read off it, `cfg.lr`, is not scaled. A schedule class of the project (a Keras
`LearningRateSchedule` whose `__call__` scales by hvd.size()) handed as the LR scales it. Written from
scratch for these tests: a Keras tape project whose config and schedule live in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Leaf disease classifier.  horovodrun -np 4 python train.py"""
    import numpy as np
    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd

    from leafcls.config import RunConfig, ScaledWarmup


    def main():
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        cfg = RunConfig()
        if hvd.rank() == 0:
            print("global batch", cfg.batch_size * cfg.world_size)
        rng = np.random.default_rng(0)
        x = rng.normal(size=(4096, 32)).astype("float32")
        y = rng.integers(0, 6, 4096)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank()).shuffle(1024)
        ds = ds.batch(cfg.batch_size)
        model = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(6)])
        optimizer = keras.optimizers.Adam(learning_rate={lr})
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        first = True
        for epoch in range(cfg.epochs):
            for xb, yb in ds:
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, model(xb, training=True))
                tape = hvd.DistributedGradientTape(tape)
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                if first:
                    hvd.broadcast_variables(model.variables, root_rank=0)
                    hvd.broadcast_variables(optimizer.variables, root_rank=0)
                    first = False
            if hvd.rank() == 0:
                model.save_weights("leaf.weights.h5")


    if __name__ == "__main__":
        main()
'''

CONFIG = '''
    import keras
    import horovod.tensorflow as hvd


    class RunConfig:
        def __init__(self):
            self.batch_size = 32
            self.world_size = hvd.size()
            self.lr = 1e-3
            self.epochs = 4


    class ScaledWarmup(keras.optimizers.schedules.LearningRateSchedule):
        def __init__(self, base, warmup):
            self.base, self.warmup = base, warmup

        def __call__(self, step):
            peak = self.base * hvd.size()
            return peak * keras.ops.minimum(1.0, (keras.ops.cast(step, "float32") + 1) / self.warmup)
'''


def step4(tmp_path, lr):
    files = {"train.py": ENTRY.replace("{lr}", lr), "leafcls/__init__.py": "", "leafcls/config.py": CONFIG}
    return check_project(tmp_path, files)[2][4]


def test_an_lr_read_off_a_config_that_records_the_size_is_not_scaled(tmp_path):
    f = step4(tmp_path, "cfg.lr")
    assert f.verdict in FLAGGED and "not scaled" in f.evidence, f


def test_a_schedule_class_scaling_by_the_size_is_scaled(tmp_path):
    assert step4(tmp_path, "ScaledWarmup(cfg.lr, 500)").verdict == OK
