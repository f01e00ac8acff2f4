"""Helpers shared by the DDP and Horovod entry points.

init_distributed() returns False for plain single-process runs (debugging on the workstation),
in which case the get_* helpers below return single-process values.
"""
import os

import torch
import horovod.torch as hvd


def init_distributed():
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        hvd.init()
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
        return True
    return False


def get_world_size():
    try:
        return hvd.size()
    except ValueError:  # horovod not initialised
        return 1


def get_rank():
    try:
        return hvd.rank()
    except ValueError:
        return 0


def get_local_rank():
    try:
        return hvd.local_rank()
    except ValueError:
        return 0


def is_main_process():
    return get_rank() == 0


def average_scalar(value, name):
    if get_world_size() == 1:
        return float(value)
    return hvd.allreduce(torch.tensor([float(value)]), name=name).item()
