import os

import keras
import horovod.tensorflow.keras as hvd


def trial_callbacks(trial, out_dir, initial_lr, steps_per_epoch, warmup_epochs=2, patience=3):
    """Fresh callbacks per trial: a used BroadcastGlobalVariablesCallback never fires again."""
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=patience, mode="max"),
    ]
    if hvd.rank() == 0:
        path = os.path.join(out_dir, f"trial_{trial.trial_id:03d}", "best.keras")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(path, monitor="val_accuracy", mode="max",
                                                   save_best_only=True))
    return cbs
