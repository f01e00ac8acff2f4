import logging
import os

import horovod.tensorflow.keras as hvd
import tensorflow as tf

LOG_FORMAT = "%(asctime)s [rank {rank}] %(levelname)s %(name)s: %(message)s"


def _configure_logging(rank, level="INFO"):
    logging.basicConfig(format=LOG_FORMAT.format(rank=rank),
                        level=getattr(logging, level) if rank == 0 else logging.WARNING)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2" if rank else "1")


def setup_runtime(log_level="INFO"):
    """Logging, Horovod and one visible GPU per process. Returns (rank, size)."""
    _configure_logging(hvd.rank(), log_level)
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    logging.getLogger(__name__).info("horovod size %d, %d local GPUs", hvd.size(), len(gpus))
    return hvd.rank(), hvd.size()
