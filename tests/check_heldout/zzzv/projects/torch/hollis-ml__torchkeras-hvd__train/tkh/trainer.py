import math
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from .metrics import Mean, SparseCategoricalAccuracy
from . import dist


class WarmupCosine:
    """lr(step) like a keras LearningRateSchedule"""

    def __init__(self, peak_lr, warmup_steps, total_steps):
        self.peak_lr = peak_lr
        self.warmup_steps = max(1, warmup_steps)
        self.total_steps = total_steps

    def __call__(self, step):
        if step < self.warmup_steps:
            return self.peak_lr * (step + 1) / self.warmup_steps
        p = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        return 0.5 * self.peak_lr * (1 + math.cos(math.pi * min(1.0, p)))


class Trainer:
    def __init__(self, model, optimizer, schedule, device="cpu", verbose=True):
        self.model = model
        self.optimizer = optimizer
        self.schedule = schedule
        self.device = device
        self.verbose = verbose
        self.global_step = 0
        self.loss_tracker = Mean("loss")
        self.acc = SparseCategoricalAccuracy()
        self.val_loss = Mean("val_loss")
        self.val_acc = SparseCategoricalAccuracy()
        self.val_acc.name = "val_acc"

    def _set_lr(self):
        lr = self.schedule(self.global_step)
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        return lr

    def train_step(self, x, y):
        self.model.train()
        lr = self._set_lr()
        self.optimizer.zero_grad()
        out = self.model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        self.optimizer.step()
        self.loss_tracker.update_state(loss.item(), y.size(0))
        self.acc.update_state(out.detach(), y)
        self.global_step += 1
        return lr

    @torch.no_grad()
    def test_step(self, x, y):
        self.model.eval()
        out = self.model(x)
        self.val_loss.update_state(F.cross_entropy(out, y).item(), y.size(0))
        self.val_acc.update_state(out, y)

    def fit_epoch(self, epoch, train_loader, val_loader):
        t0 = time.time()
        for m in (self.loss_tracker, self.acc, self.val_loss, self.val_acc):
            m.reset_states()
        for x, y in train_loader:
            x, y = x.to(self.device), y.to(self.device)
            lr = self.train_step(x, y)
        for x, y in val_loader:
            self.test_step(x.to(self.device), y.to(self.device))
        logs = {
            "loss": self.loss_tracker.result(),
            "acc": self.acc.result(),
            "val_loss": self.val_loss.result(),
            "val_acc": self.val_acc.result(),
            "lr": lr,
        }
        if self.verbose and dist.is_master():
            print("epoch %d (%.1fs) " % (epoch, time.time() - t0)
                  + " ".join("%s=%.4f" % kv for kv in logs.items()))
        return logs
