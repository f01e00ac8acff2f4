"""Horovod glue: process setup and the callbacks every run needs."""
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return tf.distribute.InputContext(hvd.size(), hvd.rank(), hvd.size())


def is_chief():
    return hvd.rank() == 0


def chief_only(callbacks):
    """Callbacks that write files are kept on rank 0 only."""
    return callbacks if is_chief() else []


def standard_callbacks(out_dir):
    cbs = [hvd.callbacks.MetricAverageCallback()]
    cbs += chief_only([
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "ckpt-{epoch:03d}.weights.h5"),
                                        save_weights_only=True),
        keras.callbacks.TensorBoard(os.path.join(out_dir, "tb"), update_freq=100),
    ])
    return cbs
