"""Rank script for tests/test_faults.py: training in which one rank fails on purpose mid-run.

    mpirun -n 2 python tests/ranks/faults_torch.py raise|kill [--rank R] [--step S]

The failing rank prints `FAIL <rank> <unix time>` just before it raises (or SIGKILLs itself); the other
ranks are then inside an allreduce, where a job without hvdkit's exception hook waits for shutdown.
"""
import argparse
import os
import signal
import time

import torch

import hvdkit.torch as hk


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["raise", "kill"])
    ap.add_argument("--rank", type=int, default=-1, help="the rank that fails (default: the last)")
    ap.add_argument("--step", type=int, default=3)
    args = ap.parse_args()
    ctx = hk.init(seed=0, threads=1)
    failing = args.rank % ctx.size
    model = torch.nn.Linear(4, 2)
    opt = hk.distributed_optimizer(torch.optim.SGD(model.parameters(), lr=0.1), model)
    hk.broadcast_state(model, opt)
    print("READY", ctx.rank, os.getpid(), flush=True)
    for step in range(100000):
        if step == args.step and ctx.rank == failing:
            print("FAIL", ctx.rank, time.time(), flush=True)
            if args.mode == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            raise RuntimeError(f"deliberate failure at step {step}")
        opt.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        opt.step()
        time.sleep(0.01)
    print("NEVER", ctx.rank, flush=True)


if __name__ == "__main__":
    main()
