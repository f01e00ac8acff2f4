import logging
import sys


def get_logger(name, rank):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"%(asctime)s [rank {rank}] %(message)s"))
        logger.addHandler(h)
    return logger
