import logging
import sys


def get_logger(name, rank, level=logging.INFO):
    """Worker 0 logs at `level`; the others only report errors."""
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"[%(asctime)s r{rank}] %(message)s", "%H:%M:%S"))
        logger.addHandler(h)
    logger.setLevel(level if rank == 0 else logging.ERROR)
    return logger


def fmt_accs(accs):
    return " ".join(f"T{k}={v:.3f}" for k, v in sorted(accs.items()))
