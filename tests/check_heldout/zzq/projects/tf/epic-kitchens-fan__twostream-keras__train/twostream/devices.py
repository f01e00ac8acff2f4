import os
import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

log = logging.getLogger(__name__)


def configure_devices(mixed_precision=False):
    """One GPU per Horovod process, memory growth on, optional mixed precision."""
    gpus = tf.config.list_physical_devices("GPU")
    log.info("rank %d sees %d GPU(s)", hvd.rank(), len(gpus))
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    os.environ["CUDA_VISIBLE_DEVICES"] = str(hvd.local_rank())
    if mixed_precision:
        tf.keras.mixed_precision.set_global_policy("mixed_float16")
    return len(gpus)
