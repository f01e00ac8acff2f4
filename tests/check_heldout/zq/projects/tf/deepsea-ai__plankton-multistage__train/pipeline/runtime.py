import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup():
    """Horovod + device setup shared by every entry point."""
    hvd.init()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    tf.random.set_seed(1234)
