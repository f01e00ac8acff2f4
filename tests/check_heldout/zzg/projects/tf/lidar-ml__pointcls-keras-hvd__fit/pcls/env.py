import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup_horovod(quiet_tf=True):
    """hvd.init() + one visible GPU per process. Returns (rank, size)."""
    if quiet_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()
