import logging
import sys


def get_logger(name, rank=0, level=logging.INFO):
    logger = logging.getLogger(name)
    if logger.handlers:
        return logger
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter(f"%(asctime)s [r{rank}] %(message)s", "%H:%M:%S"))
    logger.addHandler(h)
    logger.setLevel(level if rank == 0 else logging.WARNING)
    return logger


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)
