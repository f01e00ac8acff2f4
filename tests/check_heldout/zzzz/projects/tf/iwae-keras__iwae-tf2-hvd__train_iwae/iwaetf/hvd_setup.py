import tensorflow as tf
import horovod.tensorflow as hvd


def setup():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def avg(x):
    """average a python/np scalar over workers"""
    return float(hvd.allreduce(tf.constant(x, tf.float32), op=hvd.Average))
