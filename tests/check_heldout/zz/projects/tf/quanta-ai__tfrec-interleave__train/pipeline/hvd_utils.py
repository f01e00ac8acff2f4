import horovod.tensorflow as hvd
import tensorflow as tf


def setup_horovod():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def global_sum(values):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum)
