"""misc stuff that doesn't fit anywhere else"""
import csv
import os
import random
import time

import numpy as np
import torch
import horovod.torch as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def metric_average(val, name):
    # from the horovod pytorch mnist example
    avg = hvd.allreduce(val, name=name)
    return avg.item()


class Timer:
    def __enter__(self):
        self.t = time.time()
        return self

    def __exit__(self, *exc):
        self.elapsed = time.time() - self.t


class CSVLog:
    def __init__(self, path, fields):
        self.path, self.fields = path, fields
        if hvd.rank() == 0:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w", newline="") as f:
                csv.writer(f).writerow(fields)

    def write(self, *values):
        if hvd.rank() == 0:
            with open(self.path, "a", newline="") as f:
                csv.writer(f).writerow(values)
