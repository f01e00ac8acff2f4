"""Launch landcover training on N processes with Horovod's Python API.

    python run.py --np 8 --hosts gpu01:4,gpu02:4 --data /lustre/landcover/tiles
"""
import argparse

import horovod

from landcover.train_loop import train


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--hosts", default=None, help="host1:slots,host2:slots")
    ap.add_argument("--data", default="/lustre/landcover/tiles")
    ap.add_argument("--ckpt-dir", default="checkpoints/unet")
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.01)
    args = ap.parse_args()
    cfg = {"data": args.data, "ckpt_dir": args.ckpt_dir, "epochs": args.epochs,
           "batch_size": args.batch_size, "lr": args.lr}
    out = horovod.run(train, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("checkpoints in", out[0])


if __name__ == "__main__":
    main()
