"""Job layout discovery (Horovod first, scheduler env vars only for the report)."""
import os
import socket
from dataclasses import dataclass

import torch
import horovod.torch as hvd


@dataclass
class JobInfo:
    rank: int
    size: int
    local_rank: int
    local_size: int
    nodes: int
    host: str
    scheduler: str

    @property
    def is_root(self):
        return self.rank == 0


def _scheduler():
    if "SLURM_JOB_ID" in os.environ:
        return "slurm"
    if "LSB_JOBID" in os.environ:
        return "lsf"
    if "PBS_JOBID" in os.environ:
        return "pbs"
    return "local"


def describe_job():
    """Must be called after hvd.init()."""
    return JobInfo(rank=hvd.rank(), size=hvd.size(),
                   local_rank=hvd.local_rank(), local_size=hvd.local_size(),
                   nodes=hvd.cross_size(), host=socket.gethostname(),
                   scheduler=_scheduler())


def set_cpu_threads(threads=0):
    """Split the node's cores between the ranks that share it."""
    if threads <= 0:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        threads = max(1, cores // max(1, hvd.local_size()))
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    torch.set_num_threads(threads)
    return threads
