import logging
import sys


def get_logger(name, rank=0, level=logging.INFO):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"[%(asctime)s][rank {rank}] %(message)s", "%H:%M:%S"))
        logger.addHandler(h)
    logger.setLevel(level if rank == 0 else logging.ERROR)
    return logger
