import logging
import sys


def get_logger(name, rank=0, level=logging.INFO):
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(f"%(asctime)s [rank {rank}] %(message)s", "%H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(level if rank == 0 else logging.WARNING)
    return logger
