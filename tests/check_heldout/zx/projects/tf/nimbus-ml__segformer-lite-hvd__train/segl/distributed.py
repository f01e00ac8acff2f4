"""Horovod bootstrap shared by train.py and the export scripts."""
from collections import namedtuple

import tensorflow as tf
import horovod.tensorflow.keras as hvd

DistContext = namedtuple("DistContext", ["rank", "local_rank", "size"])


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return DistContext(rank=hvd.rank(), local_rank=hvd.local_rank(), size=hvd.size())
