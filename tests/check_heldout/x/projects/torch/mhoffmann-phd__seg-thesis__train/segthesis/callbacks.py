"""Keras-style callbacks for segthesis.trainer.Trainer (hooks get the trainer as first argument)."""
import csv
import math
import os

import torch


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_epoch_end(self, trainer, logs):
        pass

    def on_fit_end(self, trainer):
        pass


class EarlyStopping(Callback):
    # logs are already averaged over ranks by the trainer, so every rank stops at the same epoch
    def __init__(self, monitor="val_loss", patience=8, min_delta=0.0):
        self.monitor, self.patience, self.min_delta = monitor, patience, min_delta
        self.best, self.wait = math.inf, 0

    def on_epoch_end(self, trainer, logs):
        if logs[self.monitor] < self.best - self.min_delta:
            self.best, self.wait = logs[self.monitor], 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                trainer.should_stop = True


class BestModelCheckpoint(Callback):
    def __init__(self, path, monitor="val_loss"):
        self.path, self.monitor = path, monitor
        self.best, self.best_epoch = math.inf, -1

    def on_epoch_end(self, trainer, logs):
        if logs[self.monitor] >= self.best:
            return
        self.best, self.best_epoch = logs[self.monitor], trainer.epoch
        if trainer.is_chief:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            torch.save({"model": trainer.model.state_dict(), "epoch": trainer.epoch, self.monitor: self.best},
                       self.path)


class CSVLogger(Callback):
    def __init__(self, path):
        self.path = path

    def on_epoch_end(self, trainer, logs):
        if not trainer.is_chief:
            return
        new = not os.path.exists(self.path)
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        with open(self.path, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["epoch"] + sorted(logs))
            w.writerow([trainer.epoch] + [f"{logs[k]:.5f}" for k in sorted(logs)])
