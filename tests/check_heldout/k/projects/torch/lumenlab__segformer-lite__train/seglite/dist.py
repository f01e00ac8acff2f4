"""Thin wrapper around Horovod so the rest of the package never touches MPI details."""
import os

import torch
import horovod.torch as hvd


def setup_distributed(threads_per_rank=None):
    """Initialise Horovod and bind this process to its GPU.

    Returns the torch.device the process should use.
    """
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    if threads_per_rank is None:
        threads_per_rank = max(1, (os.cpu_count() or 1) // max(1, hvd.local_size()))
    torch.set_num_threads(threads_per_rank)
    return device


def is_main_process():
    return hvd.rank() == 0


def world_size():
    return hvd.size()


def log(msg):
    if is_main_process():
        print(msg, flush=True)
