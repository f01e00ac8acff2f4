import os

import tensorflow as tf
import horovod.tensorflow as hvd


def init():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return hvd.rank(), hvd.size()
