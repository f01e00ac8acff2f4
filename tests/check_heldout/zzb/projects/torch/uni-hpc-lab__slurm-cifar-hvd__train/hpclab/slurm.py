"""Read the task layout that srun exports; fall back to Horovod under horovodrun/mpirun."""
import os
import socket
from dataclasses import dataclass

import torch
import horovod.torch as hvd


@dataclass
class SlurmEnv:
    rank: int
    world: int
    local_rank: int
    node: str
    cpus_per_task: int

    @classmethod
    def from_environ(cls):
        e = os.environ
        return cls(rank=int(e.get("SLURM_PROCID", hvd.rank())),
                   world=int(e.get("SLURM_NTASKS", hvd.size())),
                   local_rank=int(e.get("SLURM_LOCALID", hvd.local_rank())),
                   node=e.get("SLURMD_NODENAME", socket.gethostname()),
                   cpus_per_task=int(e.get("SLURM_CPUS_PER_TASK", 4)))


def device_for_rank():
    """One GPU per task; the task id picks the card."""
    if not torch.cuda.is_available():
        return torch.device("cpu")
    task = int(os.environ.get("SLURM_PROCID", hvd.rank()))
    torch.cuda.set_device(task)
    return torch.device("cuda", task)
