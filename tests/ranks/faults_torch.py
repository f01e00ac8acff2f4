"""Rank script for tests/test_faults.py: torch training in which one rank fails on purpose mid-run.

    mpirun -n 2 python tests/ranks/faults_torch.py raise|kill [--rank R] [--step S]
"""
import time

import torch

import hvdkit.torch as hk
from faults_common import maybe_fail, options, ready


def main():
    args = options(__doc__)
    ctx = hk.init(seed=0, threads=1)
    model = torch.nn.Linear(4, 2)
    opt = hk.distributed_optimizer(torch.optim.SGD(model.parameters(), lr=0.1), model)
    hk.broadcast_state(model, opt)
    ready(ctx)
    for step in range(100000):
        maybe_fail(ctx, args, step)
        opt.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        opt.step()
        time.sleep(0.01)
    print("NEVER", ctx.rank, flush=True)


if __name__ == "__main__":
    main()
