import csv
import os
import time


class EpochClock:
    def __init__(self):
        self.history = []

    def start(self):
        self._t = time.perf_counter()

    def stop(self):
        dt = time.perf_counter() - self._t
        self.history.append(dt)
        return dt


def append_row(path, row):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["scaling", "ranks", "epoch", "batch_per_rank", "lr", "img_s", "val_acc"])
        w.writerow(row)
