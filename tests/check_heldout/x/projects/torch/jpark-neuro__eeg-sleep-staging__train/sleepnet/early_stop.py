import os

import horovod.torch as hvd
import torch


class EarlyStopper:
    """Tracks the best macro-F1 (same value on all workers, the confusion matrix is reduced first)."""

    def __init__(self, path, patience=10):
        self.path, self.patience = path, patience
        self.best, self.bad_epochs = -1.0, 0

    def step(self, score, model, epoch):
        if score > self.best:
            self.best, self.bad_epochs = score, 0
            if hvd.rank() == 0:
                os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
                torch.save({"model": model.state_dict(), "epoch": epoch, "macro_f1": score}, self.path)
            return False
        self.bad_epochs += 1
        return self.bad_epochs >= self.patience
