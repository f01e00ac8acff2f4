import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(out_dir, warmup_epochs, initial_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "policy_{epoch:03d}.keras")),
            keras.callbacks.CSVLogger(os.path.join(out_dir, "log.csv")),
        ]
    return cbs
