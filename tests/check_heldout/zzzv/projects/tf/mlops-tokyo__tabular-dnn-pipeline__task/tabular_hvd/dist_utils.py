import logging

import tensorflow as tf
import horovod.tensorflow.keras as hvd

log = logging.getLogger(__name__)


def maybe_init_horovod(hp):
    """Initialise horovod when the job runs distributed; single-process runs skip it."""
    if hp.distributed:
        hvd.init()
        log.info("horovod rank %d/%d", hvd.rank(), hvd.size())
        return True
    return False


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def is_chief():
    return hvd.rank() == 0
