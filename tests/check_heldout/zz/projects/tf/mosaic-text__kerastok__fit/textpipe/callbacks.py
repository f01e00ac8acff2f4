import os

import horovod.tensorflow.keras as hvd
import keras


def training_callbacks(run_dir, initial_lr, warmup_epochs, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr,
                                                 warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(run_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"),
                                            monitor="val_accuracy", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(run_dir, "history.csv")),
        ]
    return cbs
