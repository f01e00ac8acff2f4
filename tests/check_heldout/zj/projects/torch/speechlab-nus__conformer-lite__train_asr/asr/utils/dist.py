"""Thin wrappers so the rest of the code does not import horovod directly."""
import horovod.torch as hvd
import torch


def setup_distributed(seed=0):
    hvd.init()
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def world():
    return hvd.size(), hvd.rank()


def all_reduce_sum(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)
