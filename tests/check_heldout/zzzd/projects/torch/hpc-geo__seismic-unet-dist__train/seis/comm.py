"""Communication layer. Horovod on the cluster (srun/mpirun), NCCL via torchrun on the
DGX box, or nothing on a laptop."""
import os

import torch
import torch.distributed as dist

_state = {"backend": "none", "rank": 0, "size": 1, "local_rank": 0, "hvd": None}


def setup(backend):
    if backend == "horovod":
        import horovod.torch as hvd
        _state.update(hvd=hvd, rank=hvd.rank(), size=hvd.size(), local_rank=hvd.local_rank())
    elif backend == "nccl":
        dist.init_process_group("nccl")
        _state.update(rank=dist.get_rank(), size=dist.get_world_size(),
                      local_rank=int(os.environ["LOCAL_RANK"]))
    _state["backend"] = backend
    if torch.cuda.is_available():
        torch.cuda.set_device(_state["local_rank"])


def rank():
    return _state["rank"]


def size():
    return _state["size"]


def is_root():
    return _state["rank"] == 0


def hvd():
    return _state["hvd"]


def allreduce_mean(x, name):
    t = torch.as_tensor(x, dtype=torch.float32)
    if _state["backend"] == "horovod":
        return _state["hvd"].allreduce(t, name=name).item()
    if _state["backend"] == "nccl":
        t = t.cuda()
        dist.all_reduce(t)
        return t.item() / _state["size"]
    return t.item()
