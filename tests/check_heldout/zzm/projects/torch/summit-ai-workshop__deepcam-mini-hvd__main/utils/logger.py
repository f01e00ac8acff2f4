import logging
import sys

import horovod.torch as hvd


def get_logger(name="deepcam", all_ranks=False):
    logger = logging.getLogger(name)
    if logger.handlers:
        return logger
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter(f"%(asctime)s [r{hvd.rank()}] %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if (all_ranks or hvd.rank() == 0) else logging.WARNING)
    return logger
