import os

import torch
import horovod.torch as hvd


def rank_partition(ids, rank, size):
    """Equal contiguous chunk of `ids` per worker (tail dropped so every worker runs the same steps)."""
    per = len(ids) // size
    return ids[rank * per:(rank + 1) * per]


def wrap_and_sync(model, optimizer):
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return optimizer


def save_on_root(model, path):
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save(model.state_dict(), path)
