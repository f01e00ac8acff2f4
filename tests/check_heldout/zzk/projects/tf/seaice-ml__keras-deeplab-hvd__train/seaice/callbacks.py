import os

import keras
import horovod.tensorflow.keras as hvd


class EpochMarker(keras.callbacks.Callback):
    """Remember the last finished epoch next to the weights, so a restart knows where to resume."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_epoch_end(self, epoch, logs=None):
        with open(self.path, "w") as f:
            f.write(str(epoch + 1))


def build_callbacks(cfg, steps_per_epoch, initial_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "last.weights.h5"), save_weights_only=True),
            EpochMarker(os.path.join(cfg.out_dir, "last_epoch.txt")),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv"), append=True),
        ]
    return cbs
