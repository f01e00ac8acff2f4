import os
import time

import tensorflow as tf
import horovod.tensorflow.keras as hvd


class EpochTimer(tf.keras.callbacks.Callback):
    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_epoch_begin(self, epoch, logs=None):
        self._t = time.time()

    def on_epoch_end(self, epoch, logs=None):
        with open(self.path, "a") as fh:
            fh.write(f"{epoch},{time.time() - self._t:.3f}\n")


def build_callbacks(cfg, out_dir, rank):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr, warmup_epochs=cfg.warmup_epochs,
                                                 verbose=1 if rank == 0 else 0),
    ]
    rank_dir = os.path.join(out_dir, f"rank{rank}")
    os.makedirs(rank_dir, exist_ok=True)
    cbs.append(EpochTimer(os.path.join(rank_dir, "epoch_times.csv")))
    if rank == 0:
        cbs.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "ckpt-{epoch:02d}.keras")))
        cbs.append(tf.keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
