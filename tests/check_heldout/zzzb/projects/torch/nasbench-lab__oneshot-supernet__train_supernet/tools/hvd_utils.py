import random

import numpy as np
import torch
import horovod.torch as hvd


def setup(seed):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    return hvd.rank(), hvd.size()


def is_master():
    return hvd.rank() == 0


def global_accuracy(correct, total, name):
    t = torch.tensor([correct, total], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()
