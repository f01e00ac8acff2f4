"""Structured logging for payflow jobs: JSON records tagged with the Horovod rank."""
import json
import logging
import sys

import horovod.tensorflow.keras as hvd


class RankFilter(logging.Filter):
    rank = hvd.rank()

    def filter(self, record):
        record.rank = self.rank
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record):
        return json.dumps({"ts": self.formatTime(record), "level": record.levelname, "rank": record.rank,
                           "logger": record.name, "msg": record.getMessage()})


def get_logger(name="payflow"):
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.addFilter(RankFilter())
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return logger
