import json
import logging
import os
import sys
import time


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class ScalarWriter:
    """Minimal stand-in for a TensorBoard SummaryWriter: appends JSON lines."""

    def __init__(self, log_dir):
        os.makedirs(log_dir, exist_ok=True)
        self.f = open(os.path.join(log_dir, "scalars.jsonl"), "a")

    def add_scalar(self, tag, value, step):
        self.f.write(json.dumps({"tag": tag, "value": float(value), "step": step, "t": time.time()}) + "\n")
        self.f.flush()


def setup_logger(name, rank):
    logger = logging.getLogger(name)
    logger.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter(f"%(asctime)s [r{rank}] %(message)s"))
    logger.addHandler(h)
    return logger
