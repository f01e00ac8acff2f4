import logging
import sys

import horovod.tensorflow as hvd

# every line carries the worker id, so interleaved mpirun output stays readable
RANK_TAG = f"[{hvd.rank()}/{hvd.size()}]"

_logger = logging.getLogger("kws")
if not _logger.handlers:
    _h = logging.StreamHandler(sys.stdout)
    _h.setFormatter(logging.Formatter(f"%(asctime)s {RANK_TAG} %(message)s", "%H:%M:%S"))
    _logger.addHandler(_h)
    _logger.setLevel(logging.INFO)


def log(msg, *args):
    _logger.info(msg, *args)


def warn(msg, *args):
    _logger.warning(msg, *args)
