"""Distributed helpers. On Summit the job is started with
    jsrun -n<nodes*6> -a1 -c7 -g1 -r6 --bind=proportional-packed:7 python main.py ...
so every process already sees exactly the GPU it was given.
"""
import random

import numpy as np
import torch
import horovod.torch as hvd


def setup_horovod(seed=1234, deterministic=False):
    """Pin this process to its GPU and seed the RNGs. Returns (rank, local_rank, size, device)."""
    rank, local_rank, size = hvd.rank(), hvd.local_rank(), hvd.size()
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if deterministic:
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
    return rank, local_rank, size, device


def reduce_mean(value, name):
    t = torch.as_tensor(value, dtype=torch.float32)
    return hvd.allreduce(t, name=name).item()
