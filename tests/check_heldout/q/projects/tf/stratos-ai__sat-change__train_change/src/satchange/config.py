import argparse


def get_config(argv=None):
    ap = argparse.ArgumentParser("satchange")
    ap.add_argument("--train-npz", default="/data/satchange/pairs_train.npz")
    ap.add_argument("--val-npz", default="/data/satchange/pairs_val.npz")
    ap.add_argument("--ckpt-dir", default="/scratch/satchange/ckpt")
    ap.add_argument("--batch-size", type=int, default=32, help="per worker")
    ap.add_argument("--lr", type=float, default=1e-3, help="base lr, multiplied by the worker count")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--filters", type=int, default=32)
    return ap.parse_args(argv)
