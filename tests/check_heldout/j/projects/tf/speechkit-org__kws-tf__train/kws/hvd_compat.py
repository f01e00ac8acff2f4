"""One import site for Horovod: ``from kws.hvd_compat import hvd``."""
import tensorflow as tf
import horovod.tensorflow as hvd

__all__ = ["hvd", "init_horovod", "is_chief"]


def init_horovod(cpu_threads=None):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    elif cpu_threads:
        tf.config.threading.set_intra_op_parallelism_threads(cpu_threads)
    return hvd


def is_chief():
    return hvd.rank() == 0
