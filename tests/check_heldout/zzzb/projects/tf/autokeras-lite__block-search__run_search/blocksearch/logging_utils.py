import logging
import sys

import horovod.tensorflow.keras as hvd

_RANK = hvd.rank()
_FMT = f"%(asctime)s [worker {_RANK}] %(levelname)s %(message)s"


def get_logger(name="blocksearch"):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(_FMT))
        logger.addHandler(h)
    logger.setLevel(logging.INFO if _RANK == 0 else logging.WARNING)
    return logger
