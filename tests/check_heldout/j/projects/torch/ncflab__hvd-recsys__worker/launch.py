"""Start ``recsys.worker.train_worker`` on N slots without writing a hostfile.

    python launch.py --np 4 --data-dir ml-1m
    python launch.py --np 8 --hosts node1:4,node2:4 --data-dir /shared/ml-20m
"""
import argparse

import horovod

from recsys.worker import train_worker


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--np", type=int, default=2)
    p.add_argument("--hosts", default=None)
    p.add_argument("--data-dir", default="ml-1m")
    p.add_argument("--out-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--factors", type=int, default=32)
    p.add_argument("--num-neg", type=int, default=4)
    p.add_argument("--topk", type=int, default=10)
    p.add_argument("--profile-dir", default=None)
    args = p.parse_args()

    cfg = {"data_dir": args.data_dir, "out_dir": args.out_dir, "epochs": args.epochs,
           "batch_size": args.batch_size, "lr": args.lr, "factors": args.factors,
           "num_neg": args.num_neg, "topk": args.topk, "seed": 2024, "profile_dir": args.profile_dir}
    results = horovod.run(train_worker, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("best on rank 0:", results[0])


if __name__ == "__main__":
    main()
