import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(s, run_dir, initial_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=s.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.3, patience=4, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"), monitor="val_accuracy",
                                            mode="max", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(run_dir, "log.csv")),
        ]
    return cbs
