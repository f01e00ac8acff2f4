"""What a ResNet34 run costs on this CPU, estimated before it starts. Framework-free (NumPy only).

ResNet34's forward pass costs 3.6e9 multiply-adds per 224 x 224 image (He et al. 2016); a training step
about three times that. On a CPU the examples' 224 px step ran at 1.8-1.9x the multiply-add rate of a
512 x 512 NumPy matmul measured at start-up (1 rank, 2 threads: 19.2 img/s against 224 GFLOP/s for torch,
20.4 against 247 for TF), slower under load: hence a range of multiples of that rate.
"""
import os
import time

import numpy as np

from hvdkit.scale.job import current as current_job
from hvdkit.scale.meter import clock

MACS_224 = 3.6e9
MATMUL_MULTIPLES = (0.5, 2.0)
NOTE_FROM = 128  # image size from which a CPU run is slow enough to deserve the note


def matmul_macs_per_s(n=512, repeats=3):
    """This process's float32 multiply-adds per second, measured now with NumPy's matmul (a few ms): with the
    threads it has and beside the ranks it shares the machine with, which measure at the same moment."""
    a = np.ones((n, n), np.float32)
    a @ a
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - start)
    return n ** 3 / best


def time_note(image_size, batch, steps, cpu=True, ranks_per_node=None, threads=None):
    """On a CPU with images of NOTE_FROM px or more: one line with the run's expected duration; else None.

    ranks_per_node and threads default to the Horovod job's (hk.init()), or to 1 rank in a sequential run.
    """
    if not cpu or image_size < NOTE_FROM:
        return None
    job = current_job()
    if ranks_per_node is None:
        ranks_per_node = job.ctx.local_size if job else 1
    if threads is None and job:
        threads = job.ctx.threads
    work = 3 * MACS_224 * (image_size / 224) ** 2 * batch * steps  # this rank's
    # Measured alone; the ranks of this node then share its cores (os.cpu_count: a rank bound to one
    # core sees only that one in its affinity).
    cores = os.cpu_count() or 1
    share = min(1.0, cores / (ranks_per_node * (threads or max(1, cores // ranks_per_node))))
    rate = matmul_macs_per_s() * share
    fast, slow = (work / (rate * m) for m in reversed(MATMUL_MULTIPLES))
    return (f"note: at this rank's share of the matmul rate here ({2 * rate / 1e9:.0f} GFLOP/s) these {steps} "
            f"steps take roughly {clock(fast)} to {clock(slow)}; for a quick run add --image-size 64 --num-steps 5")
