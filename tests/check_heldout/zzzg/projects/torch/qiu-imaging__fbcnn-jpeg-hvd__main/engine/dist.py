"""Thin helpers around horovod so the trainer does not import it everywhere."""
import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def is_master():
    return hvd.rank() == 0


def make_loader(dataset, batch_size, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, workers=4):
    sampler = DistributedSampler(dataset, num_replicas=num_replicas, rank=rank, shuffle=shuffle)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      drop_last=shuffle), sampler


def reduce_mean(value, name):
    return hvd.allreduce(torch.as_tensor(value, dtype=torch.float32), name=name).item()
