"""Rank script for tests/test_faults.py: rank 1 skips one allreduce (a rank-dependent `if` around a
collective), so rank 0 waits in it while rank 1 waits in the next one.

    mpirun -n 2 -x HOROVOD_STALL_CHECK_TIME_SECONDS=2 -x HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=6 \\
        python tests/ranks/stall_torch.py
"""
import time

import torch

import hvdkit.torch as hk


def main():
    ctx = hk.init(threads=1)
    hk.hvd.allreduce(torch.ones(3), name="warmup.ok")
    print("STALL", ctx.rank, time.time(), flush=True)
    if ctx.rank == 0:
        hk.hvd.allreduce(torch.ones(3), name="grad.skipped_by_rank1")
    hk.hvd.allreduce(torch.ones(3), name="loss.after")
    print("NEVER", ctx.rank, flush=True)


if __name__ == "__main__":
    main()
