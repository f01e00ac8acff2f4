import argparse


def get_flags():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiles", default="data/tiles.npz")
    ap.add_argument("--tile", type=int, default=64)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--ckpt-dir", default="ckpts")
    ap.add_argument("--n-classes", type=int, default=4)
    ap.add_argument("--random-tiles", type=int, default=0)
    return ap.parse_args()
