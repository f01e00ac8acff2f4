import tensorflow as tf
import horovod.tensorflow as hvd


def start():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def mean_all(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), op=hvd.Average, name=name))
