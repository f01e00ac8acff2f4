import tensorflow as tf
import horovod.tensorflow as hvd


def configure_gpus(memory_growth=True):
    """one GPU per horovod process"""
    gpus = tf.config.list_physical_devices("GPU")
    if memory_growth:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
    return gpus
