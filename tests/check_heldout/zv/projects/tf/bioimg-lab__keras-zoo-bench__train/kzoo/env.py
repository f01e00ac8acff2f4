import logging

import tensorflow as tf


def setup_gpus():
    """Avoid grabbing the whole card; one process per GPU is handled by the launcher."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    logging.getLogger("kzoo").info("found %d GPU(s)", len(gpus))
    return gpus


def setup_logging(rank):
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.ERROR,
                        format=f"[%(asctime)s r{rank}] %(message)s")
