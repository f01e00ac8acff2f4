import os

import keras
import horovod.tensorflow.keras as hvd

from . import config


def build_callbacks(warmup_epochs=config.WARMUP_EPOCHS, ckpt_path=config.CKPT_PATH):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        # ramp the (size-scaled) learning rate up over the first epochs
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=warmup_epochs, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(ckpt_path), exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(ckpt_path, monitor="val_loss", save_best_only=True))
    return callbacks
