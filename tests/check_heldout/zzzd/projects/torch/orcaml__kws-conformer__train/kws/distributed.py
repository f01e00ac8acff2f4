"""Backend detection + thin wrappers. Horovod is used whenever an MPI/Horovod launcher is
detected; torchrun falls back to torch.distributed; otherwise a single process."""
import os

import torch
import torch.distributed as dist

BACKEND = os.environ.get("KWS_BACKEND") or (
    "horovod" if ("OMPI_COMM_WORLD_SIZE" in os.environ or "HOROVOD_SIZE" in os.environ)
    else "torch" if "WORLD_SIZE" in os.environ else "single")

if BACKEND == "horovod":
    import horovod.torch as hvd
else:
    hvd = None


def setup():
    if BACKEND == "horovod":
        hvd.init()
        local_rank = hvd.local_rank()
    elif BACKEND == "torch":
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
    else:
        local_rank = 0
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank)
    return torch.device("cpu")


def rank():
    return hvd.rank() if BACKEND == "horovod" else dist.get_rank() if BACKEND == "torch" else 0


def world_size():
    return hvd.size() if BACKEND == "horovod" else dist.get_world_size() if BACKEND == "torch" else 1


def is_main_process():
    return rank() == 0


def sum_across(values, name):
    t = torch.tensor(values, dtype=torch.float64)
    if BACKEND == "horovod":
        t = hvd.allreduce(t, op=hvd.Sum, name=name)
    elif BACKEND == "torch":
        dist.all_reduce(t)
    return t.tolist()


def broadcast_object(obj, name):
    if BACKEND == "horovod":
        return hvd.broadcast_object(obj, root_rank=0, name=name)
    if BACKEND == "torch":
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]
    return obj
