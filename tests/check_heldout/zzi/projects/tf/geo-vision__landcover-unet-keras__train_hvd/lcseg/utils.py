import logging
import sys


def get_logger(rank):
    logger = logging.getLogger("lcseg")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(f"%(asctime)s r{rank} %(levelname)s %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO if rank == 0 else logging.ERROR)
    return logger
