import os

import numpy as np
import torch


class EarlyStopping:
    def __init__(self, patience=3, verbose=False, delta=0.0, is_root=True):
        self.patience, self.verbose, self.delta = patience, verbose, delta
        self.best = np.inf
        self.counter = 0
        self.early_stop = False
        self.is_root = is_root

    def __call__(self, val_loss, model, path):
        if val_loss < self.best - self.delta:
            if self.verbose and self.is_root:
                print(f"Validation loss decreased ({self.best:.6f} --> {val_loss:.6f}). Saving model ...")
            self.best = val_loss
            self.counter = 0
            if self.is_root:
                os.makedirs(path, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(path, "checkpoint.pth"))
        else:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True


def adjust_learning_rate(optimizer, epoch, base_lr):
    lr = base_lr * (0.5 ** (epoch // 1))
    for g in optimizer.param_groups:
        g["lr"] = lr
    return lr


def metric(pred, true):
    mae = np.mean(np.abs(pred - true))
    mse = np.mean((pred - true) ** 2)
    smape = np.mean(200 * np.abs(pred - true) / (np.abs(pred) + np.abs(true) + 1e-8))
    return mae, mse, smape
