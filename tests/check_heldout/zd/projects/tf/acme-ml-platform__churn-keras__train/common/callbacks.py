import os

import keras
import horovod.tensorflow.keras as hvd

from common.tracking import JsonLinesTracker


def build_callbacks(cfg, scaled_lr, steps_per_epoch):
    """Order matters: metrics are averaged before early stopping / checkpointing read them."""
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg.patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.model_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.model_dir, "best.keras"),
                                                         monitor="val_loss", save_best_only=True))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.model_dir, "history.csv")))
        callbacks.append(JsonLinesTracker(cfg.experiment))
    return callbacks
