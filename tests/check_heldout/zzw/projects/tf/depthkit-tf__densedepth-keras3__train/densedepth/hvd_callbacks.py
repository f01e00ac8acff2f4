import os

import keras
import horovod.tensorflow.keras as hvd


def training_callbacks(initial_lr, warmup_epochs, ckpt_dir, log_dir):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=5, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(ckpt_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(log_dir, "history.csv")))
    return cbs
