import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(out_dir, base_lr, steps_per_epoch, warmup_epochs=3):
    cbs = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"),
                                                   monitor="val_accuracy", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
