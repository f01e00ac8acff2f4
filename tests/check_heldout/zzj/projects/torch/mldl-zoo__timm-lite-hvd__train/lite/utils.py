import random

import numpy as np
import torch
import horovod.torch as hvd


def set_seed(seed, rank=0):
    # different seed per worker so that augmentation streams differ
    seed = seed + rank
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def reduce_tensor(t, name=None):
    return hvd.allreduce(t.detach().float().cpu(), op=hvd.Average, name=name)


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)
