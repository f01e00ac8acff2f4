import logging
import os
import sys


def get_logger(rank, log_dir=None, name="hpclab"):
    """Every rank logs to its own file; only rank 0 also logs to stdout."""
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO)
    fmt = logging.Formatter(f"%(asctime)s [r{rank}] %(message)s")
    if rank == 0:
        sh = logging.StreamHandler(sys.stdout)
        sh.setFormatter(fmt)
        logger.addHandler(sh)
    if log_dir:
        os.makedirs(os.path.join(log_dir, f"rank_{rank}"), exist_ok=True)
        fh = logging.FileHandler(os.path.join(log_dir, f"rank_{rank}", "train.log"))
        fh.setFormatter(fmt)
        logger.addHandler(fh)
    return logger
