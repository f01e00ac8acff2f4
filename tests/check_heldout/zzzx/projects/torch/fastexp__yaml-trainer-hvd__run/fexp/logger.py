import logging
import os
import sys


def get_logger(out_dir, is_master=True, name="fexp"):
    logger = logging.getLogger(name)
    logger.propagate = False
    if logger.handlers:
        return logger
    if not is_master:
        logger.setLevel(logging.ERROR)
        return logger
    logger.setLevel(logging.INFO)
    os.makedirs(out_dir, exist_ok=True)
    fmt = logging.Formatter("[%(asctime)s] %(message)s", "%m/%d %H:%M:%S")
    for h in (logging.StreamHandler(sys.stdout), logging.FileHandler(os.path.join(out_dir, "train.log"))):
        h.setFormatter(fmt)
        logger.addHandler(h)
    return logger
