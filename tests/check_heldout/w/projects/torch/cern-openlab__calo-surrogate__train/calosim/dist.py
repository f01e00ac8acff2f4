"""Device/communication helpers shared by our MPI and Horovod jobs."""
import os

import torch
import horovod.torch as hvd


def local_rank_from_env():
    # Cray MPICH exports PMI_LOCAL_RANK, srun exports SLURM_LOCALID
    for var in ("PMI_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"):
        if var in os.environ:
            return int(os.environ[var])
    return 0


def setup_device():
    if not torch.cuda.is_available():
        return torch.device("cpu")
    lr = local_rank_from_env()
    torch.cuda.set_device(lr)
    return torch.device("cuda", lr)


def average(value, name):
    return hvd.allreduce(torch.as_tensor(value, dtype=torch.float32), name=name).item()


def log(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)
