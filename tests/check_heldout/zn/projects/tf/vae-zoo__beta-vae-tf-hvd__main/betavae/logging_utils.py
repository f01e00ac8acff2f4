import csv
import logging
import os
import sys
import time


def get_logger(name, rank=0):
    log = logging.getLogger(name)
    if not log.handlers:
        h = logging.StreamHandler(sys.stdout)
        h.setFormatter(logging.Formatter(f"%(asctime)s [rank {rank}] %(message)s"))
        log.addHandler(h)
    log.propagate = False
    log.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    return log


class ScalarWriter:
    """Appends (time, step, tag, value) rows to <logdir>/scalars.csv; a no-op on non-chief workers."""

    def __init__(self, logdir, enabled=True):
        self.enabled = enabled
        self.path = os.path.join(logdir, "scalars.csv")
        if enabled:
            os.makedirs(logdir, exist_ok=True)

    def scalars(self, step, values):
        if not self.enabled:
            return
        with open(self.path, "a", newline="") as f:
            w = csv.writer(f)
            for k, v in values.items():
                w.writerow([f"{time.time():.0f}", step, k, f"{float(v):.6g}"])
