import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def start():
    """init horovod and give each worker one GPU"""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    return hvd.rank(), hvd.size()
