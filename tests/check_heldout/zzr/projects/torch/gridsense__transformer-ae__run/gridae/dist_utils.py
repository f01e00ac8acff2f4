"""Thin Horovod helpers so the rest of the package does not import horovod directly."""
import torch
import horovod.torch as hvd
from torch.utils.data.distributed import DistributedSampler


def setup():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda")
    return torch.device("cpu")


def world_size():
    return hvd.size()


def is_master():
    return hvd.rank() == 0


def make_sampler(dataset, shuffle=True):
    return DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=shuffle)


def wrap_optimizer(optimizer, model):
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def sync_model(model, optimizer):
    hvd.broadcast_parameters(model.parameters(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def reduce_sum(values, name):
    return hvd.allreduce(torch.as_tensor(values, dtype=torch.float64), op=hvd.Sum, name=name)
