import horovod.tensorflow.keras as hvd
import tensorflow as tf


def setup():
    """Start Horovod and give this process exactly one GPU (no-op on CPU hosts)."""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.size(), hvd.rank()
