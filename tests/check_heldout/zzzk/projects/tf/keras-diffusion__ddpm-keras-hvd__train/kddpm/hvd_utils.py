import tensorflow as tf
import horovod.tensorflow as hvd


def setup_horovod():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0


def allreduce_mean(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), op=hvd.Average, name=name))
