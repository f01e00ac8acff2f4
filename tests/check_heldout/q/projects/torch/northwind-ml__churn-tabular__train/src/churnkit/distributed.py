"""Thin Horovod helpers so the trainer never touches hvd directly."""
import horovod.torch as hvd
import torch


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_main():
    return hvd.rank() == 0


def world():
    return hvd.size(), hvd.rank()


def wrap_optimizer(optimizer, model, accum_steps=1):
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                    backward_passes_per_step=accum_steps)


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def mean(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()
