import torch
import horovod.torch as hvd


def init_worker():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def rank_indices(n, seed):
    """Same permutation on every rank (shared seed), then a strided slice of equal length."""
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    usable = (n // hvd.size()) * hvd.size()
    return perm[:usable][hvd.rank()::hvd.size()]


def distributed(optimizer, model):
    # gradients are summed, not averaged: with plain SGD this is the same update as averaging
    # with lr * size, so the configured lr is used unchanged
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)


def sync(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
