import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def global_sum(x, name):
    return hvd.allreduce(tf.convert_to_tensor(x, tf.float64), op=hvd.Sum, name=name)


def chief():
    return hvd.rank() == 0
