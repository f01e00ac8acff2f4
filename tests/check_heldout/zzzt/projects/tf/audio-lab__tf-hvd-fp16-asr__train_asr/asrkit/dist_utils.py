import tensorflow as tf
import horovod.tensorflow as hvd


def init_gpus():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def mean_over_workers(x, name):
    return hvd.allreduce(tf.convert_to_tensor(x, tf.float32), op=hvd.Average, name=name)


def sum_over_workers(x, name):
    return hvd.allreduce(tf.convert_to_tensor(x, tf.float32), op=hvd.Sum, name=name)
