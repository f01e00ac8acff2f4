import logging

import keras
import tensorflow as tf
import horovod.tensorflow.keras as hvd

log = logging.getLogger(__name__)


def start(settings):
    """Initialise Horovod and the TF runtime. Returns (rank, size)."""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus and settings.pin_gpu:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if settings.mixed_precision:
        keras.mixed_precision.set_global_policy("mixed_float16")
    log.info("worker %d/%d, %d visible GPU(s)", hvd.rank(), hvd.size(), len(gpus))
    return hvd.rank(), hvd.size()
