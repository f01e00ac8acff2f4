import os

import torch
import horovod.torch as hvd


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += float(val) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def save_checkpoint(state, out_dir, is_best):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save(state, os.path.join(out_dir, "checkpoint.pth.tar"))
    if is_best:
        torch.save(state, os.path.join(out_dir, "model_best.pth.tar"))
