"""Thin Horovod helpers shared by pretrain.py and linear_eval.py."""
import torch
import horovod.torch as hvd


def setup(seed=0):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(seed)


def device():
    return torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")


def world_size():
    return hvd.size()


def rank():
    return hvd.rank()


def is_main():
    return hvd.rank() == 0


def wrap_and_sync(optimizer, model, **kw):
    """DistributedOptimizer over `model`, then copy rank 0's weights and optimizer state."""
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), **kw)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return optimizer


def all_mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
