import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    # one writer per node
    return hvd.local_rank() == 0


def world():
    return hvd.size(), hvd.rank()
