"""Process / cluster environment helpers shared by the training and serving images."""
import logging
import os

import tensorflow as tf


def is_chief():
    # the k8s operator sets RANK on every pod; bare-metal runs default to a single chief
    return os.environ.get("RANK", "0") == "0"


def configure_gpus():
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError as err:
            logging.warning("memory growth not set on %s: %s", gpu.name, err)
    return len(gpus)


def setup_logging():
    level = logging.INFO if is_chief() else logging.WARNING
    logging.basicConfig(level=level, format="%(asctime)s %(name)s %(message)s")
