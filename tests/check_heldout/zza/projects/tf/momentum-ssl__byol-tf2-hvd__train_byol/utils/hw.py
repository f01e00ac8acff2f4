import logging

import tensorflow as tf
import horovod.tensorflow as hvd

log = logging.getLogger(__name__)


def setup_gpus():
    """Pin this worker to one GPU and enable memory growth."""
    gpus = tf.config.list_physical_devices("GPU")
    try:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        if gpus:
            tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    except RuntimeError as e:
        # visible devices must be set before GPUs have been initialized
        log.warning("could not configure GPUs: %s", e)
    return len(gpus)
