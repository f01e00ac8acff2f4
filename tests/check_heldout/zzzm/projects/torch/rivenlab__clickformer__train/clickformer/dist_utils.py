import os

import torch
import horovod.torch as hvd

_DEVICE = torch.device("cpu")


def setup(cfg):
    global _DEVICE
    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        _DEVICE = torch.device("cuda", hvd.local_rank())
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))


def device():
    return _DEVICE


def is_main():
    return hvd.rank() == 0


def world_size():
    return hvd.size()


def all_mean(value, name):
    t = torch.as_tensor(value, dtype=torch.float32)
    return hvd.allreduce(t, op=hvd.Average, name=name).item()
