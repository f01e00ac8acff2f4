import argparse


def parse_flags(argv=None):
    ap = argparse.ArgumentParser(description="SchNet (Keras 3 / TF2) with horovod")
    ap.add_argument("--train", default="data/train.npz")
    ap.add_argument("--valid", default="data/valid.npz")
    ap.add_argument("--batch", type=int, default=16, help="molecules per worker")
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--cutoff", type=float, default=5.0)
    ap.add_argument("--features", type=int, default=64)
    ap.add_argument("--interactions", type=int, default=3)
    ap.add_argument("--rho-e", type=float, default=0.1, help="energy loss weight")
    ap.add_argument("--rho-f", type=float, default=1.0, help="force loss weight")
    ap.add_argument("--ema", type=float, default=0.99, help="EMA momentum (0 to disable)")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--seed", type=int, default=2024)
    return ap.parse_args(argv)
