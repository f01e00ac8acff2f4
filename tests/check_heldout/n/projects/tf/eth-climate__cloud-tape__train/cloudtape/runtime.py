import logging

import tensorflow as tf
import horovod.tensorflow as hvd

logger = logging.getLogger("cloudtape")


def init_horovod(mixed=False):
    """hvd.init(), one visible GPU per process, logging only on rank 0. Returns (rank, size)."""
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")
    logger.info("horovod: %d processes, %d per node", hvd.size(), hvd.local_size())
    return hvd.rank(), hvd.size()
