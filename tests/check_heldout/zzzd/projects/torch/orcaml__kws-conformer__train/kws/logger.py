import logging
import sys


def get_logger(name, is_main):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO if is_main else logging.ERROR)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter("%(asctime)s | %(message)s", "%H:%M:%S"))
        logger.addHandler(h)
    return logger
