import math
import os
import time

import keras
import horovod.tensorflow.keras as hvd


class WarmupCosineLR(keras.callbacks.Callback):
    """Per-batch lr: linear warm-up to the optimizer's initial lr, then cosine decay to zero."""

    def __init__(self, steps_per_epoch, epochs, warmup_epochs=2):
        super().__init__()
        self.spe, self.total = steps_per_epoch, steps_per_epoch * epochs
        self.warm = steps_per_epoch * warmup_epochs
        self.step = 0
        self.peak = None

    def on_train_begin(self, logs=None):
        self.peak = float(keras.ops.convert_to_numpy(self.model.optimizer.learning_rate))

    def on_train_batch_begin(self, batch, logs=None):
        if self.step < self.warm:
            lr = self.peak * (self.step + 1) / self.warm
        else:
            t = (self.step - self.warm) / max(1, self.total - self.warm)
            lr = 0.5 * self.peak * (1 + math.cos(math.pi * t))
        self.model.optimizer.learning_rate.assign(lr)
        self.step += 1


class EpochTimer(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        if hvd.rank() == 0:
            logs = logs or {}
            print(f"epoch {epoch + 1}: {time.time() - self.t0:.1f}s "
                  + " ".join(f"{k}={v:.4f}" for k, v in logs.items()))


class BestCheckpoint(keras.callbacks.Callback):
    """Keeps the weights with the best val_psnr; only rank 0 writes."""

    def __init__(self, out_dir, monitor="val_psnr"):
        super().__init__()
        self.out_dir, self.monitor, self.best = out_dir, monitor, -math.inf

    def on_epoch_end(self, epoch, logs=None):
        val = (logs or {}).get(self.monitor)
        if val is None or val <= self.best:
            return
        self.best = val
        if hvd.rank() == 0:
            os.makedirs(self.out_dir, exist_ok=True)
            self.model.save_weights(os.path.join(self.out_dir, "best.weights.h5"))


def default_callbacks(cfg, steps_per_epoch):
    cbs = [
        hvd.callbacks.MetricAverageCallback(),
        WarmupCosineLR(steps_per_epoch, cfg["epochs"], cfg["warmup_epochs"]),
        EpochTimer(),
        BestCheckpoint(cfg["out_dir"]),
    ]
    return cbs
