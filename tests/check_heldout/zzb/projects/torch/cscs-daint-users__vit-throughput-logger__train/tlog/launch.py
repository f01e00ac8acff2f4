"""Entry point wrapper: Horovod setup, device and threads, then the user's worker(ctx, args)."""
import os
from types import SimpleNamespace

import torch
import horovod.torch as hvd


def _threads_per_rank():
    cpus = int(os.environ.get("SLURM_CPUS_PER_TASK", 0)) or os.cpu_count() // max(1, hvd.local_size())
    return max(1, cpus)


def setup():
    hvd.init()
    torch.set_num_threads(_threads_per_rank())
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(42)
    return SimpleNamespace(rank=hvd.rank(), size=hvd.size(), local_rank=hvd.local_rank(),
                           cuda=cuda, device=torch.device("cuda" if cuda else "cpu"))


def run(fn, args):
    ctx = setup()
    if ctx.rank == 0:
        print(f"horovod: {ctx.size} ranks, nccl={hvd.nccl_built()}, mpi={hvd.mpi_enabled()}", flush=True)
    return fn(ctx, args)
