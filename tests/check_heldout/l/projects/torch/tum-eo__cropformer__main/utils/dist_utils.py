"""Thin layer over Horovod so the rest of the code base never imports it directly.

The names follow the torch.distributed helpers this project used before the
move to Horovod (is_main_process, get_world_size, reduce_mean, ...).
"""
import os

import torch
import horovod.torch as hvd

_INITIALIZED = False


def init_distributed_mode(args):
    global _INITIALIZED
    hvd.init()
    _INITIALIZED = True
    args.rank = hvd.rank()
    args.world_size = hvd.size()
    args.gpu = hvd.local_rank()
    if torch.cuda.is_available():
        torch.cuda.set_device(args.gpu)
        args.device = "cuda"
    else:
        torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
        args.device = "cpu"
    setup_for_distributed(args.rank == 0)


def is_dist_avail_and_initialized():
    return _INITIALIZED


def get_world_size():
    return hvd.size() if _INITIALIZED else 1


def get_rank():
    return hvd.rank() if _INITIALIZED else 0


def is_main_process():
    return get_rank() == 0


def setup_for_distributed(is_master):
    """Silence print() on every process but the master (pass force=True to override)."""
    import builtins as __builtin__
    builtin_print = __builtin__.print

    def print(*args, **kwargs):
        force = kwargs.pop("force", False)
        if is_master or force:
            builtin_print(*args, **kwargs)

    __builtin__.print = print


def reduce_mean(tensor, name=None):
    """Mean of `tensor` over all workers (all_reduce + divide, as in the DDP version)."""
    world_size = get_world_size()
    if world_size < 2:
        return tensor
    rt = tensor.detach().clone().cpu()
    hvd.allreduce(rt, op=hvd.Sum, name=name)
    rt /= world_size
    return rt


def save_on_master(*args, **kwargs):
    if is_main_process():
        torch.save(*args, **kwargs)
