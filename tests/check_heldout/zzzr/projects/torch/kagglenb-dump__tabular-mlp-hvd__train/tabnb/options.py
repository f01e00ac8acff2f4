import argparse


def get_parser():
    p = argparse.ArgumentParser(description="tabular MLP (from the kaggle notebook)")
    p.add_argument("--csv", default="data/train.csv")
    p.add_argument("--target", default="target")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--val-frac", type=float, default=0.2)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--synthetic", type=int, default=0, help="N random rows instead of the csv")
    return p
