import logging
import os

import tensorflow as tf

log = logging.getLogger(__name__)


def configure_gpus(mixed_precision=False):
    """Allocate GPU memory on demand (so several jobs can share a node) and
    optionally turn on mixed precision."""
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if mixed_precision and gpus:
        import keras
        keras.mixed_precision.set_global_policy("mixed_float16")
    log.info("found %d GPU(s)", len(gpus))
    return gpus
