"""Rank script for tests/test_two_hosts.py: allreduces of rank-dependent tensors between two "hosts".

    ip netns exec NS env HOROVOD_RANK=R ... python tests/ranks/two_hosts_allreduce.py [--steps N]

Each step allreduces x = (rank + 1) * arange(n) + rank and checks the closed form
sum_r x = S(S+1)/2 * arange(n) + S(S-1)/2. Prints `STEP <i> <unix time>` after each checked step and
`DONE <rank> <steps>` at the end; `--seconds` keeps going until that much time has passed (the link is
cut meanwhile, so a healthy run prints `NEVER`).
"""
import argparse
import time

import torch

import hvdkit.torch as hk


def main():
    ap = argparse.ArgumentParser(formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=0, help="run for this long instead of --steps")
    ap.add_argument("--elements", type=int, default=1 << 16)
    ap.add_argument("--pause", type=float, default=0.02, help="seconds between steps")
    args = ap.parse_args()
    ctx = hk.init(threads=1)
    s = ctx.size
    base = torch.arange(args.elements, dtype=torch.float64)
    want = base * (s * (s + 1) / 2) + s * (s - 1) / 2
    print("READY", ctx.rank, ctx.size, hk.hvd.local_size(), hk.hvd.cross_size(), time.time(), flush=True)
    start, step = time.time(), 0
    while (time.time() - start < args.seconds) if args.seconds else (step < args.steps):
        got = hk.hvd.allreduce(base * (ctx.rank + 1) + ctx.rank, op=hk.hvd.Sum, name="x")
        assert torch.equal(got, want), \
            f"step {step}: allreduce gave {got[:4].tolist()}..., expected {want[:4].tolist()}..."
        print("STEP", step, time.time(), flush=True)
        step += 1
        time.sleep(args.pause)
    print("NEVER" if args.seconds else "DONE", ctx.rank, step, flush=True)


if __name__ == "__main__":
    main()
