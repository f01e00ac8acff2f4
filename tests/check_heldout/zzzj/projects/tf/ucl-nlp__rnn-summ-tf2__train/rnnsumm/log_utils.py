import logging
import sys

import horovod.tensorflow as hvd

_RANK = hvd.rank()
_FMT = f"[rank {_RANK}] %(asctime)s %(levelname)s %(message)s"


def get_logger(name="rnnsumm"):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(_FMT))
        logger.addHandler(h)
        logger.setLevel(logging.INFO if _RANK == 0 else logging.ERROR)
    return logger
