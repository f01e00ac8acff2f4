import os

import keras
import horovod.tensorflow.keras as hvd

from . import defaults


def training_callbacks(model_dir, scaled_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=defaults.WARMUP_EPOCHS,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=1e-5),
    ]
    if hvd.rank() == 0:
        os.makedirs(model_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(model_dir, "ckpt-{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(model_dir, "history.csv")))
    return cbs
