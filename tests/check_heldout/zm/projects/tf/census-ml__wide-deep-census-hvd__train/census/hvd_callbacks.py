import os

import keras
import horovod.tensorflow.keras as hvd


def standard(scaled_lr, steps_per_epoch, job_dir, warmup_epochs=3):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(job_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(job_dir, "wd-{epoch:02d}.keras")),
            keras.callbacks.CSVLogger(os.path.join(job_dir, "history.csv")),
        ]
    return cbs
