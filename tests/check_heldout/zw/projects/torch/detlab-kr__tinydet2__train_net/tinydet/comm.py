"""Communication helpers. Ported from the torch.distributed version; backed by Horovod now."""
import os

import torch
import horovod.torch as hvd


def init_distributed():
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(get_local_rank())


def get_world_size() -> int:
    return hvd.size()


def get_rank() -> int:
    return hvd.rank()


def get_local_rank() -> int:
    # set by the launcher (torchrun / slurm wrapper)
    return int(os.environ.get("LOCAL_RANK", 0))


def is_main_process() -> bool:
    return get_rank() == 0


def synchronize():
    if get_world_size() > 1:
        hvd.barrier()


def all_gather(data):
    return hvd.allgather_object(data)
