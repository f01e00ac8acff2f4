"""Process set-up shared by all of the group's Keras scripts."""
import horovod.tensorflow.keras as hvd
import tensorflow as tf


def init_workers(mixed_precision=False):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if mixed_precision:
        import keras
        keras.mixed_precision.set_global_policy("mixed_float16")
    return hvd.rank(), hvd.size()
