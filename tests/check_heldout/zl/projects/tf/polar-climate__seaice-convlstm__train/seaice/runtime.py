import logging

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from . import settings


def setup_tf(mixed_precision=True):
    """Call once per process, right after hvd.init()."""
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    if mixed_precision and tf.config.list_physical_devices("GPU"):
        keras.mixed_precision.set_global_policy("mixed_float16")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(message)s")


def build_optimizer():
    opt = keras.optimizers.Adam(learning_rate=settings.LR, clipnorm=None)
    return hvd.DistributedOptimizer(opt)
