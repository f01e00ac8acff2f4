"""One set of helpers for the three ways this repo is launched.

horovodrun / mpirun  -> backend "horovod"
torchrun             -> backend "ddp"
python train.py      -> backend "none"
"""
import os

import torch
import torch.distributed as dist

_BACKEND = "none"
_hvd = None


def init_distributed(backend="horovod"):
    global _BACKEND, _hvd
    if backend == "horovod":
        import horovod.torch as hvd
        hvd.init()
        _hvd = hvd
        if torch.cuda.is_available():
            torch.cuda.set_device(hvd.local_rank())
    elif backend == "ddp":
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        if torch.cuda.is_available():
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    elif backend != "none":
        raise ValueError(f"unknown backend {backend!r}")
    _BACKEND = backend
    return backend


def get_backend():
    return _BACKEND


def get_world_size():
    if _BACKEND == "horovod":
        return _hvd.size()
    if _BACKEND == "ddp":
        return dist.get_world_size()
    return 1


def get_rank():
    if _BACKEND == "horovod":
        return _hvd.rank()
    if _BACKEND == "ddp":
        return dist.get_rank()
    return 0


def is_main_process():
    return get_rank() == 0


def all_reduce_sum(tensor, name=None):
    if _BACKEND == "horovod":
        return _hvd.allreduce(tensor, name=name, op=_hvd.Sum)
    if _BACKEND == "ddp":
        tensor = tensor.clone()
        dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def all_reduce_mean(tensor, name=None):
    return all_reduce_sum(tensor, name=name) / get_world_size()


def distribute(model, optimizer):
    """Wrap model/optimizer for the active backend and sync the initial state."""
    if _BACKEND == "horovod":
        _hvd.broadcast_parameters(model.state_dict(), root_rank=0)
        _hvd.broadcast_optimizer_state(optimizer, root_rank=0)
        optimizer = _hvd.DistributedOptimizer(
            optimizer, named_parameters=model.named_parameters())
    elif _BACKEND == "ddp":
        device_ids = [torch.cuda.current_device()] if torch.cuda.is_available() else None
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=device_ids)
    return model, optimizer
