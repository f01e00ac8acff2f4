"""Horovod plumbing, kept in one place so the trainer stays framework-agnostic."""
import torch
import horovod.torch as hvd


def setup():
    hvd.init()
    torch.set_num_threads(2)
    return get_device()


def get_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def is_main():
    return hvd.rank() == 0


def wrap_optimizer(optimizer, model):
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def allreduce_sum(value, name):
    return hvd.allreduce(torch.tensor(float(value)), op=hvd.Sum, name=name).item()
