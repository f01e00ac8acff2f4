import horovod.tensorflow.keras as hvd
import tensorflow as tf


def setup_runtime():
    """Start Horovod and give this process its own GPU (memory grown on demand)."""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()
