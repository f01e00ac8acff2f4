import os
import time

import keras


class EpochTimer(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["epoch_seconds"] = time.time() - self._t0


def build_callbacks(artifact_dir, is_chief):
    callbacks = [EpochTimer(), keras.callbacks.TerminateOnNaN()]
    if is_chief:
        os.makedirs(artifact_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(artifact_dir, "epoch{epoch:02d}.keras")),
            keras.callbacks.CSVLogger(os.path.join(artifact_dir, "training_log.csv")),
        ]
    return callbacks
