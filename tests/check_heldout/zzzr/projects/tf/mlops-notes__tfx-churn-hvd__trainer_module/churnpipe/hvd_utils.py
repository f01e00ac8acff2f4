import tensorflow as tf
import horovod.tensorflow.keras as hvd

_DONE = False


def ensure_horovod():
    global _DONE
    if _DONE:
        return
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    _DONE = True


def is_chief():
    return hvd.rank() == 0
