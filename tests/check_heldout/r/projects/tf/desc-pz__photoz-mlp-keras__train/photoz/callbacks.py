import os

import horovod.tensorflow.keras as hvd
import tensorflow as tf
from tensorflow import keras


def setup_gpus(local_rank):
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")


def make_callbacks(rank, out_dir):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=5, min_lr=1e-6),
    ]
    if rank == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), monitor="val_loss",
                                                   save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
