import logging
import sys

import tensorflow as tf
import horovod.tensorflow as hvd


def init_workers():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        gpu = gpus[hvd.local_rank()]
        tf.config.experimental.set_memory_growth(gpu, True)
        tf.config.set_visible_devices(gpu, "GPU")
    level = logging.INFO if hvd.rank() == 0 else logging.WARNING
    logging.basicConfig(stream=sys.stdout, level=level, format="%(asctime)s %(message)s")
    return logging.getLogger("tokamak")


def mean_over_workers(values, name):
    """values: list of python floats (sums) -> sums over all workers."""
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name=name).numpy()
