import os
import time

import keras
import numpy as np
import horovod.tensorflow.keras as hvd


class ThroughputLogger(keras.callbacks.Callback):
    def __init__(self, batch_size, every=50):
        super().__init__()
        self.bs, self.every = batch_size, every

    def on_train_batch_begin(self, batch, logs=None):
        if batch % self.every == 0:
            self.t0 = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if batch % self.every == 0:
            ips = self.bs / max(time.time() - self.t0, 1e-9)
            tot = hvd.allreduce(np.float32(ips), op=hvd.Sum, name="ips")
            if hvd.rank() == 0:
                print(f" batch {batch}: {ips:.1f} img/s/worker, {float(tot):.1f} img/s total")


def warmup_schedule(base_lr, warmup_epochs, size):
    def sched(epoch, lr):
        if epoch < warmup_epochs:
            return base_lr * (1 + epoch * (size - 1) / warmup_epochs)
        return base_lr * size * (0.1 ** (epoch // 15))
    return sched


def build(cfg):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.LearningRateScheduler(warmup_schedule(cfg.base_lr, cfg.warmup_epochs, hvd.size())),
        ThroughputLogger(cfg.batch_size),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.ckpt_dir, "epoch-{epoch:02d}.keras")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.ckpt_dir, "history.csv")))
    return cbs
