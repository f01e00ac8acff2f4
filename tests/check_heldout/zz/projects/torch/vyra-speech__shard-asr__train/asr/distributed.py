"""Thin wrapper so the recipe can run with or without horovod."""
import horovod.torch as hvd
import torch


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return {"rank": hvd.rank(), "local_rank": hvd.local_rank(), "size": hvd.size()}


def wrap_optimizer(optimizer, model, world_size):
    if world_size > 1:
        return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                        backward_passes_per_step=1)
    return optimizer


def broadcast_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
