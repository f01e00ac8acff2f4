import os

import tensorflow as tf


def setup_gpus(index):
    """Memory growth on, and restrict this process to one GPU."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    os.environ["CUDA_VISIBLE_DEVICES"] = str(index)
    return len(gpus)
