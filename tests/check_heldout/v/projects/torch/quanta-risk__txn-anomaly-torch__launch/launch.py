"""Launches txn.train_fn on a Horovod cluster from a driver (no horovodrun needed).

    python launch.py --np 8 --hosts gpu01:4,gpu02:4 --data-dir /data/txn/v7/npz
"""
import argparse

import horovod

from txn import train_fn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--hosts", default=None)
    ap.add_argument("--data-dir", default="/data/txn/v7/npz")
    ap.add_argument("--out-dir", default="/shared/models/txn-mlp")
    ap.add_argument("--num-features", type=int, default=48)
    ap.add_argument("--batch-size", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--pos-weight", type=float, default=20.0)
    args = ap.parse_args()

    cfg = {k: v for k, v in vars(args).items() if k not in ("np", "hosts")}
    results = horovod.run(train_fn, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("final metrics (rank 0):", results[0][-1])


if __name__ == "__main__":
    main()
