import os
import random

import horovod.torch as hvd
import numpy as np
import torch


def init_distributed(seed=0):
    """hvd.init(), one GPU per local rank, identical seeds (weights are broadcast anyway)."""
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // max(hvd.local_size(), 1)))
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def is_chief():
    return hvd.rank() == 0


def save_on_chief(state, path):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save(state, path)
