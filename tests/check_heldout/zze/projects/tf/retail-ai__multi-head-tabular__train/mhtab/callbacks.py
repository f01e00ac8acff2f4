import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(run_dir):
    os.makedirs(run_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=6, restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(os.path.join(run_dir, "best.keras"), monitor="val_loss",
                                        save_best_only=True),
    ]
    # only the first worker writes logs
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(run_dir, "history.csv")))
    return callbacks
