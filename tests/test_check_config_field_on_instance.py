"""Step 5: a tape wrapped only when a config object's field is on, read through the instance holding it.

The Trainer keeps its dataclass config (`self.cfg = cfg`) and wraps the tape under `if self.cfg.distributed:`.
The field defaults to False, and the entry script builds the config without it: a run with the defaults
never averages gradients. Given `distributed=True` where the config is made, the wrapper runs. Written from
scratch for these tests: a Keras autoencoder project whose Trainer and config live in a package module."""
from hvdkit.check import FLAGGED, OK

from crash_scripts import check_project

ENTRY = '''
    """Convolutional autoencoder.  horovodrun -np 4 python main.py --steps 3000"""
    import argparse

    import numpy as np
    import tensorflow as tf
    import horovod.tensorflow as hvd

    from aekit.trainer import Trainer, TrainerConfig


    def main():
        ap = argparse.ArgumentParser()
        ap.add_argument("--steps", type=int, default=3000)
        ap.add_argument("--lr", type=float, default=1e-3)
        args = ap.parse_args()
        hvd.init()
        gpus = tf.config.list_physical_devices("GPU")
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        x = np.random.default_rng(0).normal(size=(8192, 64)).astype("float32")
        ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank()).shuffle(1024).batch(32).repeat()
        cfg = TrainerConfig(lr=args.lr * hvd.size(){given})
        trainer = Trainer(cfg)
        first = True
        for step, batch in enumerate(ds.take(args.steps)):
            loss = trainer.train_step(batch, first)
            first = False
            if step % 500 == 0 and hvd.rank() == 0:
                print(f"step {step} loss {float(loss):.4f}")
                trainer.model.save_weights("ae.weights.h5")


    if __name__ == "__main__":
        main()
'''

TRAINER = '''
    from dataclasses import dataclass

    import tensorflow as tf
    import keras
    import horovod.tensorflow as hvd


    @dataclass
    class TrainerConfig:
        lr: float = 1e-3
        hidden: int = 16
        distributed: bool = False


    class Trainer:
        def __init__(self, cfg):
            self.cfg = cfg
            self.model = keras.Sequential([keras.layers.Dense(cfg.hidden, activation="relu"), keras.layers.Dense(64)])
            self.model.build((None, 64))
            self.optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)

        @tf.function
        def train_step(self, x, first):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.model(x, training=True) - x))
            if self.cfg.distributed:
                tape = hvd.DistributedGradientTape(tape)
            grads = tape.gradient(loss, self.model.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
            if first:
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
            return loss
'''


def step5(tmp_path, given):
    files = {"main.py": ENTRY.replace("{given}", given), "aekit/__init__.py": "", "aekit/trainer.py": TRAINER}
    return check_project(tmp_path, files, script="main.py")[2][5]


def test_a_wrapper_behind_a_config_field_off_by_default_is_flagged(tmp_path):
    f = step5(tmp_path, "")
    assert f.verdict in FLAGGED and "self.cfg.distributed" in f.evidence, f


def test_the_field_turned_on_where_the_config_is_made_is_ok(tmp_path):
    assert step5(tmp_path, ", distributed=True").verdict == OK
