"""This process's rank and the number of ranks, as the launcher set them: the project's one rank reader.

Horovod knows them after hvd.init(); code that must know earlier or without Horovod (which rank prints
a usage error, the name of a per-rank file, a DDP or MultiWorkerMirroredStrategy side) reads what the
launcher put in the environment. The first launcher whose rank variable is set wins, and its size (or
local rank and size) variable goes with it: mixing two launchers' variables would give a rank outside
the size.
"""
import os

LAUNCHERS = (
    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),  # OpenMPI's mpirun
    ("PMI_RANK", "PMI_SIZE"),                          # MPICH / Intel MPI (Hydra), srun --mpi=pmi2
    ("HOROVOD_RANK", "HOROVOD_SIZE"),                  # horovodrun's Gloo launcher
    ("SLURM_PROCID", "SLURM_NTASKS"),                  # srun without an MPI plug-in
    ("RANK", "WORLD_SIZE"),                            # torchrun (last: RANK is a common name)
)
LOCAL = (
    ("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("HOROVOD_LOCAL_RANK", "HOROVOD_LOCAL_SIZE"),
)


def _first(pairs, env):
    for rank, size in pairs:
        if env.get(rank, "").strip().isdigit():
            n = env.get(size, "").strip()
            return int(env[rank]), int(n) if n.isdigit() else None
    return None, None


def rank_and_size(env=None):
    """(rank, size) from the launcher's variables; (0, 1) when no launcher started this process."""
    rank, size = _first(LAUNCHERS, os.environ if env is None else env)
    if rank is None:
        return 0, 1
    return rank, size if size is not None else rank + 1


def local_rank_and_size(env=None):
    """(rank, size) among the ranks on this node; the global ones when the launcher does not say."""
    env = os.environ if env is None else env
    rank, size = _first(LOCAL, env)
    if rank is None:
        return rank_and_size(env)
    return rank, size if size is not None else rank + 1
