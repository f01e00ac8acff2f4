import horovod.tensorflow as hvd
import tensorflow as tf


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0
