import logging
import sys


class _RankFilter(logging.Filter):
    def __init__(self, rank):
        super().__init__()
        self.rank = rank

    def filter(self, record):
        record.rank = self.rank
        return self.rank == 0 or record.levelno >= logging.WARNING


def get_logger(name, rank):
    logger = logging.getLogger(name)
    if not logger.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter("[%(asctime)s][rank %(rank)s] %(message)s", "%H:%M:%S"))
        h.addFilter(_RankFilter(rank))
        logger.addHandler(h)
        logger.setLevel(logging.INFO)
    return logger
