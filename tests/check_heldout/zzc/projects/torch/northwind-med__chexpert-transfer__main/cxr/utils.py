import logging
import sys


def setup_logging(rank):
    logging.basicConfig(stream=sys.stdout, level=logging.INFO if rank == 0 else logging.ERROR,
                        format=f"%(asctime)s [rank {rank}] %(levelname)s %(message)s")


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class EarlyStopping:
    def __init__(self, patience=3, mode="max", min_delta=0.0):
        self.patience, self.mode, self.min_delta = patience, mode, min_delta
        self.best, self.bad_epochs, self.should_stop = None, 0, False

    def step(self, value):
        better = (self.best is None or
                  (value > self.best + self.min_delta if self.mode == "max"
                   else value < self.best - self.min_delta))
        if better:
            self.best, self.bad_epochs = value, 0
        else:
            self.bad_epochs += 1
            self.should_stop = self.bad_epochs >= self.patience
        return better
