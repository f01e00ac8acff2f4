import os

import keras
import horovod.tensorflow.keras as hvd


def horovod_callbacks(initial_lr, warmup_epochs, steps_per_epoch):
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]


def chief_callbacks(out_dir):
    if hvd.rank() != 0:
        return []
    os.makedirs(out_dir, exist_ok=True)
    return [
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "student-{epoch:03d}.weights.h5"),
                                        save_weights_only=True),
        keras.callbacks.CSVLogger(os.path.join(out_dir, "log.csv")),
    ]
