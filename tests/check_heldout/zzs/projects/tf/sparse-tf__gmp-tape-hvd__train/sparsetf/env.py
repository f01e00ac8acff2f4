import os

import tensorflow as tf


def configure_devices(seed=None, xla=False):
    """Common TF runtime setup for all our training scripts."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    if xla:
        tf.config.optimizer.set_jit(True)
    if seed is not None:
        tf.keras.utils.set_random_seed(seed)
