import os

import keras
import horovod.tensorflow.keras as hvd


def distributed_callbacks(initial_lr, warmup_epochs, ckpt_dir, steps_per_epoch):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2),
    ]
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "epoch{epoch:02d}.keras")))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(ckpt_dir, "history.csv")))
    return callbacks
