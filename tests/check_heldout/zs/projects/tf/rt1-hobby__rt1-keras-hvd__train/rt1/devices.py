import logging

import tensorflow as tf

log = logging.getLogger(__name__)


def configure_gpus(memory_growth=True):
    """Avoid TF grabbing all GPU memory up front (several jobs share our nodes)."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        try:
            tf.config.experimental.set_memory_growth(gpu, memory_growth)
        except RuntimeError as e:  # already initialised
            log.warning("could not set memory growth: %s", e)
    return len(gpus)
