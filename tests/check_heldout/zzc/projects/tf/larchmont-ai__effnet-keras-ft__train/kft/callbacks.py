import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, stage, warmup_lr=None, steps=None):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if stage == 1 and warmup_lr is not None:
        cbs.append(hvd.callbacks.LearningRateWarmupCallback(
            initial_lr=warmup_lr, warmup_epochs=cfg.warmup_epochs, steps_per_epoch=steps))
    cbs.append(keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max",
                                             patience=cfg.patience, restore_best_weights=True))
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(cfg.ckpt_path), exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(cfg.ckpt_path, monitor="val_accuracy",
                                                   mode="max", save_best_only=True))
    return cbs
