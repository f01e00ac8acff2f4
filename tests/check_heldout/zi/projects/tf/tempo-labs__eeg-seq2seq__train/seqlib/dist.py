"""Horovod bootstrap shared by the training and the evaluation entry points."""
import tensorflow as tf
import horovod.tensorflow as hvd


def init_horovod():
    hvd.init()
    setup_gpus()
    return hvd.rank(), hvd.size()


def setup_gpus():
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return len(gpus)


def is_chief():
    return hvd.rank() == 0
