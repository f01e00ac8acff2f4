import logging
import sys


def get_logger(name, rank, level=logging.INFO):
    """Rank 0 logs at `level`, the other workers only warnings and errors."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"%(asctime)s [r{rank}] %(levelname)s %(message)s", "%H:%M:%S"))
        logger.addHandler(h)
    logger.setLevel(level if rank == 0 else logging.WARNING)
    logger.propagate = False
    return logger
