"""Horovod glue kept out of main.py so the single-GPU path stays readable."""
import torch
import horovod.torch as hvd


def world_info():
    return hvd.rank(), hvd.size(), hvd.local_rank()


def wrap_optimizer(optimizer, model, fp16_allreduce=False):
    compression = hvd.Compression.fp16 if fp16_allreduce else hvd.Compression.none
    return hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                    compression=compression)


def sync_state(model, optimizer):
    # heads are retrained from scratch on their own task, only the shared
    # trunk has to start from the same point on every worker
    hvd.broadcast_parameters(model.trunk.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def is_master():
    return hvd.rank() == 0


def save_master(obj, path):
    if is_master():
        torch.save(obj, path)
