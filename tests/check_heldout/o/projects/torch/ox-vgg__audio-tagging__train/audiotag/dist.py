"""Thin Horovod helpers so the rest of the code never calls hvd directly."""
import horovod.torch as hvd

world_size = 1
rank = 0
local_rank = 0


def init():
    global world_size, rank, local_rank
    hvd.init()
    world_size, rank, local_rank = hvd.size(), hvd.rank(), hvd.local_rank()
    return world_size, rank, local_rank


def gather_cat(t, name):
    """Concatenate a (n_i, ...) tensor from every worker along dim 0 (sizes may differ)."""
    return hvd.allgather(t.contiguous(), name=name)
