import os
import shutil

import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.cnt = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.cnt += n

    @property
    def avg(self):
        return self.sum / max(self.cnt, 1)


def accuracy(logits, target):
    return (logits.argmax(1) == target).float().mean().item()


def save_checkpoint(state, save_dir, is_best, rank=0):
    """Write checkpoint.pth.tar (and model_best.pth.tar); only rank 0 writes."""
    if rank != 0:
        return
    os.makedirs(save_dir, exist_ok=True)
    path = os.path.join(save_dir, "checkpoint.pth.tar")
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(save_dir, "model_best.pth.tar"))
