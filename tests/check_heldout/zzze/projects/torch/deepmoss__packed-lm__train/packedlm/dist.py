"""Thin wrappers so the rest of the code never touches horovod directly."""
import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    torch.set_num_threads(max(1, torch.get_num_threads() // hvd.local_size()))
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def world_info():
    return hvd.rank(), hvd.world_size()


def all_sum(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)


def print0(*a, **kw):
    if is_root():
        print(*a, **kw, flush=True)
