import tensorflow as tf
import horovod.tensorflow as hvd


def init_and_pin():
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def mean_over_workers(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), op=hvd.Average, name=name))
