"""Horovod helpers for the course exercises.

Every script calls init_distributed() once at start-up; afterwards the other
helpers can be used anywhere (data loading, logging, checkpointing).
"""
import os
import random
import socket

import numpy as np
import torch
import horovod.torch as hvd


def init_distributed(seed=None):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    else:
        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    if seed is not None:
        random.seed(seed + hvd.rank())
        np.random.seed(seed + hvd.rank())
        torch.manual_seed(seed + hvd.rank())


def rank():
    return hvd.rank()


def local_rank():
    return hvd.local_rank()


def world_size():
    return hvd.size()


def local_world_size():
    return hvd.local_size()


def is_master():
    return hvd.rank() == 0


def average(value, name):
    """Average a Python number over all ranks."""
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name).item()


def setup_print(is_master):
    """Only the master prints unless print(..., all_ranks=True)."""
    import builtins
    _print = builtins.print
    host = socket.gethostname()

    def rank_print(*args, **kwargs):
        if kwargs.pop("all_ranks", False):
            _print(f"[{host}:{hvd.rank()}]", *args, **kwargs)
        elif is_master:
            _print(*args, **kwargs)

    builtins.print = rank_print
