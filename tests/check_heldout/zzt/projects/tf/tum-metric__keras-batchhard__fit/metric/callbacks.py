import os

import keras
import numpy as np
import horovod.tensorflow.keras as hvd


class RecallAtK(keras.callbacks.Callback):
    """Recall@K on the full test split (query = gallery, leave-one-out)."""

    def __init__(self, x, y, ks=(1, 2, 4, 8), every=5):
        super().__init__()
        self.x, self.y, self.ks, self.every = x.astype("float32") / 255.0, y, ks, every

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every:
            return
        e = self.model.predict(self.x, batch_size=512, verbose=0)
        sim = e @ e.T
        np.fill_diagonal(sim, -np.inf)
        top = np.argsort(-sim, axis=1)[:, : max(self.ks)]
        hit = self.y[top] == self.y[:, None]
        if hvd.rank() == 0:
            print(" ".join(f"R@{k}={hit[:, :k].any(1).mean():.4f}" for k in self.ks))


def build_callbacks(cfg, steps_per_epoch, test_x, test_y):
    callbacks = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        RecallAtK(test_x, test_y),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks += [
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "epoch{epoch:03d}.keras")),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "log.csv")),
        ]
    return callbacks
