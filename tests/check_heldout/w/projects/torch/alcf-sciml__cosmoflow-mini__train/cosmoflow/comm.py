"""Thin MPI-style wrappers around Horovod so the rest of the package reads like our MPI codes."""
import torch
import horovod.torch as hvd


def init():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def rank():
    return hvd.rank()


def size():
    return hvd.size()


def is_root():
    return hvd.rank() == 0


def sync_model(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def allreduce_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name).item()
