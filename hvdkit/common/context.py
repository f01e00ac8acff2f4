"""What `init()` returns, and how many CPU threads a rank should use."""
import os
from dataclasses import dataclass


# Horovod fuses the gradients ready in a cycle into allreduces of up to HOROVOD_FUSION_THRESHOLD bytes (its
# default: 128 MiB). On CPUs, with every core computing, smaller fused allreduces paid: ResNet34 at 2 ranks x 1
# thread gained in both frameworks (docs/performance.md; benchmarks/scaling_bench.py measures both settings).
CPU_FUSION_THRESHOLD = 16 * 2**20


def cpu_horovod_defaults(gpu):
    """Before hvd.init(), on ranks without a GPU: hvdkit's fusion threshold unless the user set one."""
    if not gpu:
        os.environ.setdefault("HOROVOD_FUSION_THRESHOLD", str(CPU_FUSION_THRESHOLD))


def usable_cores():
    """Cores this process may run on (affinity-aware: a batch scheduler may give fewer than the node has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def threads_per_rank(local_size, threads=None, cores=None):
    """Intra-op threads for one rank: the caller's choice, else the node's cores split among its ranks.

    Oversubscribed ranks that each start one thread per core fight over the cores and crawl.
    """
    if threads is not None:
        if int(threads) < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        return int(threads)
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
