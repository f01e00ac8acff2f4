"""Thin Horovod helpers so train.py reads like a single-GPU script."""
import torch
import horovod.torch as hvd


def setup(seed):
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(seed)
    return device


def is_root():
    return hvd.rank() == 0


def sync_initial_state(model, optimizer):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def mean_scalar(value, name):
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()


def gather_rows(t, name):
    return hvd.allgather(t.contiguous().cpu(), name=name)
