import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

_log = logging.getLogger("news")


def setup():
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    tf.keras.utils.set_random_seed(2023)


def log0(msg):
    if hvd.rank() == 0:
        _log.info(msg)
