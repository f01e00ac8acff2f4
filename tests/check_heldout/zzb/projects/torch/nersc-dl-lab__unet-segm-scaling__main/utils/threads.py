"""CPU thread placement: must run before torch spins up its thread pools."""
import os

import torch
import horovod.torch as hvd


def pin_threads(cpus_per_task=None):
    cpus = cpus_per_task or int(os.environ.get("SLURM_CPUS_PER_TASK", os.cpu_count()))
    # several tasks per node share the node's cores when srun is given -c for the whole node
    per_rank = max(1, cpus // hvd.local_size())
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(per_rank)
    torch.set_num_threads(per_rank)
    torch.set_num_interop_threads(min(4, per_rank))
    return per_rank
