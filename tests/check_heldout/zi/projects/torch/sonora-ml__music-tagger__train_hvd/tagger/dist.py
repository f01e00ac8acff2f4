"""Thin Horovod helpers so the training script reads like the single-GPU one."""
import numpy as np
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def scaled_lr(base_lr):
    # linear scaling rule: the global batch grows with the number of workers
    return base_lr * hvd.size()


def shard_indices(n, seed, epoch):
    """Same permutation on every rank, then a strided, equal-length slice per rank."""
    perm = np.random.RandomState(seed + epoch).permutation(n)
    per_rank = n // hvd.size()
    return perm[hvd.rank()::hvd.size()][:per_rank].tolist()


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def gather(tensor, name):
    return hvd.allgather(tensor.contiguous(), name=name)
