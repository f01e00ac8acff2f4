import logging

import tensorflow as tf
import horovod.tensorflow as hvd

log = logging.getLogger(__name__)


def setup_gpus(memory_growth=True):
    """Restrict TensorFlow to this worker's GPU. Call before any op touches a device."""
    local_rank = hvd.local_rank()
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        log.warning("no GPU found, worker %d runs on CPU", local_rank)
        return None
    if memory_growth:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
    tf.config.set_visible_devices(gpus[local_rank % len(gpus)], "GPU")
    return gpus[local_rank % len(gpus)]
