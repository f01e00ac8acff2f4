import logging
import sys

import horovod.torch as hvd

_FMT = "%(asctime)s [rank {rank}] %(levelname)s %(name)s: %(message)s"
_RANK = hvd.rank()


def get_logger(name="enhancer", all_ranks=False):
    logger = logging.getLogger(name)
    if logger.handlers:
        return logger
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(_FMT.format(rank=_RANK)))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if (all_ranks or _RANK == 0) else logging.WARNING)
    logger.propagate = False
    return logger
