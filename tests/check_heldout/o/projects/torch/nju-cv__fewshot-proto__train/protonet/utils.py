import os
import random
import time

import numpy as np
import torch
import horovod.torch as hvd


class AverageMeter:
    def __init__(self, name, fmt=":.4f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = float(val)
        self.sum += float(val) * n
        self.count += n
        self.avg = self.sum / max(self.count, 1)

    def __str__(self):
        return ("{name} {val" + self.fmt + "} ({avg" + self.fmt + "})").format(**self.__dict__)


class Timer:
    def __init__(self):
        self.t0 = time.time()

    def tic(self):
        self.t0 = time.time()

    def toc(self):
        return time.time() - self.t0


def set_seed(seed, deterministic=False):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.benchmark = not deterministic
    torch.backends.cudnn.deterministic = deterministic


def is_main_process():
    # one writer per machine: avoids clobbering the log/ckpt folder from every GPU
    return hvd.local_rank() == 0


def save_checkpoint(state, out_dir, is_best):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "last.pth")
    torch.save(state, path)
    if is_best:
        torch.save(state, os.path.join(out_dir, "best.pth"))
    return path


def load_checkpoint(path, model, optimizer=None):
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    if optimizer is not None and "optimizer" in ckpt:
        optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt.get("epoch", 0), ckpt.get("best_acc", 0.0)
