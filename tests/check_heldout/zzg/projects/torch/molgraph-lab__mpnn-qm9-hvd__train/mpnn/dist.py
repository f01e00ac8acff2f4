"""Thin Horovod helpers so the training script reads like the single-GPU one."""
import numpy as np
import torch
import horovod.torch as hvd

_DEVICE = None


def setup():
    global _DEVICE
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        _DEVICE = torch.device("cuda", hvd.local_rank())
    else:
        _DEVICE = torch.device("cpu")
    return _DEVICE


def device():
    return _DEVICE


def partition(n, seed=0):
    """Indices of this rank's share of a data set of n items.

    Every rank draws the same permutation, trims it to a multiple of the
    world size (so all ranks run the same number of steps) and takes a stride.
    """
    perm = np.random.RandomState(seed).permutation(n)
    perm = perm[: len(perm) - len(perm) % hvd.size()]
    return perm[hvd.rank()::hvd.size()].tolist()


def global_mean(total, count):
    total = hvd.allreduce(total, op=hvd.Sum, name="metric_total")
    count = hvd.allreduce(count, op=hvd.Sum, name="metric_count")
    return (total / count).item()
