"""Distributed helpers.

Originally the torch.distributed versions from our DETR fork (get_world_size, reduce_dict, ...),
rewritten for Horovod when the group moved to the university cluster (no NCCL rendezvous there).
Names are kept so that the rest of the code did not have to change.
"""
import torch
import horovod.torch as hvd


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    return hvd.rank(), hvd.size()


def get_world_size():
    return hvd.size()


def get_rank():
    return hvd.rank()


def is_main_process():
    return get_rank() == 0


def save_on_master(obj, path):
    if is_main_process():
        torch.save(obj, path)


def reduce_dict(input_dict, average=True):
    """Reduce a dict of scalar tensors over all ranks (every rank must hold the same keys)."""
    if get_world_size() < 2:
        return input_dict
    names = sorted(input_dict.keys())
    values = torch.stack([input_dict[k].detach().float().cpu() for k in names])
    values = hvd.allreduce(values, name="reduce_dict", op=hvd.Average if average else hvd.Sum)
    return {k: v for k, v in zip(names, values)}


def sync_model(model, optimizer=None):
    # was: DDP did this for us in the constructor
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    if optimizer is not None:
        hvd.broadcast_optimizer_state(optimizer, root_rank=0)
