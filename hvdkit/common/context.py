"""What `init()` returns, and how many CPU threads a rank should use."""
import os
from dataclasses import dataclass


# On CPUs the cores that compute also reduce: the CPU time of Horovod's background thread and of MPI comes
# out of the training step (docs/performance.md measures it per step from /proc). Two defaults cut it:
# - HOROVOD_FUSION_THRESHOLD (Horovod's default: 128 MiB). Horovod copies the gradients ready in a cycle into
#   a fusion buffer of up to this size, allreduces it and copies it back. At 1 MiB the small tensors are
#   still fused into few calls, while the large ones, most of the bytes, are reduced in place, uncopied.
# - OpenMPI busy-polls while it waits for a peer unless it knows the node is oversubscribed; here the core
#   it spins on is the one that should be computing. Yielding costs nothing when a core is idle.
# OpenMPI's single-copy transport (CMA) is left as it is: its two-copy path halved the bandwidth of 16 and
# 64 MB allreduces and cost the 2-rank ResNet34 step more CPU, not less, on a CPU without AVX-512
# (docs/performance.md).
CPU_FUSION_THRESHOLD = 1 * 2**20


def cpu_horovod_defaults(gpu):
    """Before hvd.init() (MPI_Init reads OMPI_MCA_* then), on ranks without a GPU: hvdkit's fusion threshold
    and OpenMPI's yielding, each unless the user set it."""
    if not gpu:
        os.environ.setdefault("HOROVOD_FUSION_THRESHOLD", str(CPU_FUSION_THRESHOLD))
        os.environ.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")


def usable_cores():
    """Cores this process may run on (affinity-aware: a batch scheduler may give fewer than the node has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def threads_per_rank(local_size, threads=None, cores=None):
    """Intra-op threads for one rank: the caller's choice, else $OMP_NUM_THREADS (yours, a job script's, or
    what `hvdkit scale` gives each rank), else the node's cores split among its ranks.

    Oversubscribed ranks that each start one thread per core fight over the cores and crawl.
    """
    if threads is not None:
        if int(threads) < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        return int(threads)
    omp = os.environ.get("OMP_NUM_THREADS", "").strip()
    if omp.isdigit() and int(omp) >= 1:  # OpenMP's own "4,2" (nested levels) is left to OpenMP
        return int(omp)
    cores = usable_cores() if cores is None else cores
    return max(1, cores // max(1, local_size))


@dataclass(frozen=True)
class Context:
    rank: int
    size: int
    local_rank: int
    local_size: int
    device: str
    threads: int

    @property
    def is_root(self):
        return self.rank == 0
