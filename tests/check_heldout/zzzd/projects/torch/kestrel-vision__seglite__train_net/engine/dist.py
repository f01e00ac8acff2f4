"""Launcher-agnostic distributed helpers.

The backend is picked from the environment the launcher leaves behind, so the
same command works under horovodrun/mpirun, torchrun and plain python.
"""
import os

import torch
import torch.distributed as tdist

_backend = None
_hvd = None


def detect_backend():
    env = os.environ
    if "HOROVOD_RANK" in env or "OMPI_COMM_WORLD_RANK" in env or "PMI_RANK" in env:
        return "horovod"
    if "LOCAL_RANK" in env and "WORLD_SIZE" in env:
        return "ddp"
    return "none"


def init(backend="auto"):
    global _backend, _hvd
    _backend = detect_backend() if backend == "auto" else backend
    if _backend == "horovod":
        import horovod.torch as hvd
        hvd.init()
        _hvd = hvd
        local_rank = hvd.local_rank()
    elif _backend == "ddp":
        tdist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
        local_rank = int(os.environ["LOCAL_RANK"])
    else:
        local_rank = 0
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
    return _backend


def backend():
    return _backend


def world_size():
    if _backend == "horovod":
        return _hvd.size()
    return tdist.get_world_size() if _backend == "ddp" else 1


def rank():
    if _backend == "horovod":
        return _hvd.rank()
    return tdist.get_rank() if _backend == "ddp" else 0


def is_main_process():
    # usable before init(): torchrun and slurm both export the global rank
    return int(os.environ.get("RANK", os.environ.get("SLURM_PROCID", 0))) == 0


def all_reduce_mean(t, name=None):
    if _backend == "horovod":
        return _hvd.allreduce(t, average=False, name=name)
    if _backend == "ddp":
        t = t.clone()
        tdist.all_reduce(t)
        t /= tdist.get_world_size()
    return t
