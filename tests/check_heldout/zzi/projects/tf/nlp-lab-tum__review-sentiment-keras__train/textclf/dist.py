"""Horovod bootstrap shared by train.py and predict.py."""
import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

logger = logging.getLogger(__name__)


def setup_horovod(memory_growth=True):
    """Pin this process to one GPU and start Horovod. Returns (rank, size)."""
    local_rank = hvd.local_rank()
    gpus = tf.config.list_physical_devices("GPU")
    if memory_growth:
        for gpu in gpus:
            tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
    hvd.init()
    logger.info("horovod up: rank %d/%d (local %d)", hvd.rank(), hvd.size(), local_rank)
    return hvd.rank(), hvd.size()


def is_root():
    return hvd.rank() == 0
