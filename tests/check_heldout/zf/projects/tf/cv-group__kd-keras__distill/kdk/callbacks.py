import os

import horovod.tensorflow.keras as hvd
import keras


def standard_callbacks(out_dir, warmup_epochs, initial_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "student-{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "log.csv")))
    return cbs
