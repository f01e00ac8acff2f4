import random

import numpy as np
import torch
import horovod.torch as hvd


def setup(seed):
    """init horovod, pick this worker's GPU, seed everything. Returns the torch device."""
    hvd.init()
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        # one GPU per worker
        torch.cuda.set_device(hvd.rank())
        torch.cuda.manual_seed(seed)
        return torch.device('cuda', hvd.rank())
    torch.set_num_threads(1)
    return torch.device('cpu')


def rank0_print(*a, **kw):
    if hvd.rank() == 0:
        print(*a, **kw)
