import logging
import sys


def get_logger(name, main_process):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%H:%M:%S"))
        logger.addHandler(h)
    logger.setLevel(logging.INFO if main_process else logging.WARNING)
    return logger
