"""Thin wrapper so the rest of the code does not import horovod directly."""
import os

import torch
import horovod.torch as hvd


def setup(use_cuda=True):
    hvd.init()
    if use_cuda and torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    return torch.device("cpu")


def world_size():
    return hvd.size()


def rank():
    return hvd.rank()


def is_master():
    return hvd.rank() == 0


def sum_tensor(t, name):
    return hvd.allreduce(t, op=hvd.Sum, name=name)


def sync_state(model, optimizer, epoch):
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    return hvd.broadcast_object(epoch, root_rank=0, name="start_epoch")


def wrap_optimizer(optimizer, model):
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                    compression=hvd.Compression.fp16)
