import random

import numpy as np
import torch
import horovod.torch as hvd


def init_distributed(seed):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
    # every worker gets its own crop/flip stream
    random.seed(seed + hvd.rank())
    np.random.seed(seed + hvd.rank())
    torch.manual_seed(seed + hvd.rank())
    return hvd.rank(), hvd.size()


def is_main():
    return hvd.rank() == 0


def log(*args):
    if hvd.rank() == 0:
        print(*args, flush=True)


def sum_tensor(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)
