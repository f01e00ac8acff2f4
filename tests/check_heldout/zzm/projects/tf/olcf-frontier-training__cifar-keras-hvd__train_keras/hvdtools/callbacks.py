import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(initial_lr, warmup_epochs, steps_per_epoch, out_dir, epochs):
    cbs = [
        # rank 0's initial weights to everybody
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average the epoch metrics (incl. validation) over ranks
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=initial_lr, multiplier=0.1,
                                                   start_epoch=int(epochs * 0.6),
                                                   end_epoch=int(epochs * 0.85)),
        hvd.callbacks.LearningRateScheduleCallback(initial_lr=initial_lr, multiplier=0.01,
                                                   start_epoch=int(epochs * 0.85)),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "epoch-{epoch:03d}.keras")),
            keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")),
        ]
    return cbs
