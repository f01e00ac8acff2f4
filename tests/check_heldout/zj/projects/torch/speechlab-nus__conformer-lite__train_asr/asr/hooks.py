import glob
import os

import torch


class StepHook:
    def before_step(self, state): pass
    def after_step(self, state): pass
    def end_of_epoch(self, state): pass


class NoamWarmup(StepHook):
    def __init__(self, optimizer, peak_lr, warmup):
        self.optimizer, self.peak_lr, self.warmup = optimizer, peak_lr, warmup

    def before_step(self, state):
        step = max(1, state["step"])
        lr = self.peak_lr * min(step / self.warmup, (self.warmup / step) ** 0.5)
        for g in self.optimizer.param_groups:
            g["lr"] = lr


class Checkpointer(StepHook):
    """Saves model + optimizer at the end of each epoch and keeps the last `keep` files."""

    def __init__(self, out_dir, keep=3, rank=0):
        self.out_dir, self.keep, self.rank = out_dir, keep, rank

    def end_of_epoch(self, state):
        if self.rank != 0:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        path = os.path.join(self.out_dir, f"epoch{state['epoch']:03d}.pt")
        torch.save({k: state[k] for k in ("epoch", "step")} |
                   {"model": state["model"].state_dict(), "optimizer": state["optimizer"].state_dict()},
                   path)
        for old in sorted(glob.glob(os.path.join(self.out_dir, "epoch*.pt")))[:-self.keep]:
            os.remove(old)
