import torch
import horovod.torch as hvd


def setup(use_cuda=True):
    """init horovod and pin this process to its local gpu"""
    hvd.init()
    use_cuda = use_cuda and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(1)
    return use_cuda


def is_master():
    return hvd.rank() == 0


def all_mean(value, name):
    t = torch.tensor(float(value))
    return hvd.allreduce(t, name=name, op=hvd.Average).item()


def all_sum(t, name):
    return hvd.allreduce(t, name=name, op=hvd.Sum)
