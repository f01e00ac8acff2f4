"""Horovod helpers shared by all training scripts in this repository."""
import horovod.tensorflow.keras as hvd
import tensorflow as tf

__all__ = ["hvd", "init_and_pin", "is_chief"]


def init_and_pin():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0
