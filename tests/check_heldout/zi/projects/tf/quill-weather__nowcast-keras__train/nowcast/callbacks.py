import os

import keras
import horovod.tensorflow.keras as hvd

from . import config


def build(scaled_lr, steps_per_epoch, is_root):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=config.WARMUP_EPOCHS,
                                                 steps_per_epoch=steps_per_epoch, verbose=int(is_root)),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=1e-5),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=config.PATIENCE, restore_best_weights=True),
    ]
    if is_root:
        os.makedirs(config.OUT_DIR, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(config.OUT_DIR, "best.keras"), monitor="val_loss",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(config.OUT_DIR, "history.csv")),
        ]
    return cbs
