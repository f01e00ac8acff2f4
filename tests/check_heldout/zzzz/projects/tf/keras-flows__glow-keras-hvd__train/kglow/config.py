import argparse


def parse_args(argv=None):
    ap = argparse.ArgumentParser("glow-keras")
    ap.add_argument("--data", default="data/cifar10_train.npy")
    ap.add_argument("--val-data", default="data/cifar10_test.npy")
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=5)
    ap.add_argument("--levels", type=int, default=3)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--n-bits", type=int, default=8)
    ap.add_argument("--logdir", default="logs/glow")
    ap.add_argument("--samples-every", type=int, default=5)
    return ap.parse_args(argv)
