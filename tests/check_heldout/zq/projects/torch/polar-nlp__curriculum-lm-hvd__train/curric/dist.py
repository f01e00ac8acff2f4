"""Thin Horovod helpers."""
import os

import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def global_mean(total, count, name):
    t = torch.tensor([total, count], dtype=torch.float64)
    t = hvd.allreduce(t, op=hvd.Sum, name=name)
    return (t[0] / t[1]).item()
