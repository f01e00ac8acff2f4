import contextlib
import csv
import time

import torch


class StepTimer:
    """Per-rank step timings written to a CSV (one file per rank)."""

    def __init__(self, path, sync_cuda=False):
        self._fh = open(path, "w", newline="")
        self._w = csv.writer(self._fh)
        self._w.writerow(["epoch", "step", "seconds"])
        self.sync_cuda = sync_cuda
        self.last = 0.0

    @contextlib.contextmanager
    def step(self, epoch, step):
        if self.sync_cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        yield
        if self.sync_cuda:
            torch.cuda.synchronize()
        self.last = time.perf_counter() - t0
        self._w.writerow([epoch, step, f"{self.last:.6f}"])

    def close(self):
        self._fh.close()


class Throughput:
    def __init__(self):
        self.reset()

    def reset(self):
        self.samples = 0
        self.seconds = 0.0

    def add(self, n, seconds):
        self.samples += n
        self.seconds += seconds

    def rate(self):
        return self.samples / self.seconds if self.seconds else 0.0
