import tensorflow as tf
import horovod.tensorflow.keras as hvdk


def setup():
    hvdk.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvdk.local_rank()], "GPU")
    return hvdk.rank(), hvdk.size(), hvdk.local_rank()
