import tensorflow as tf
import horovod.tensorflow as hvd


def init_and_pin():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0


def allreduce_mean(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float64), op=hvd.Average, name=name))
