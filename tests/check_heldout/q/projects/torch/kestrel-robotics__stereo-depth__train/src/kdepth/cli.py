import argparse


def build_argparser():
    ap = argparse.ArgumentParser(description="kdepth: monocular depth for the rover nav stack")
    ap.add_argument("--train-file", default="data/depth_train.npz")
    ap.add_argument("--val-file", default="data/depth_val.npz")
    ap.add_argument("--out-dir", default="outputs/kdepth")
    ap.add_argument("--global-batch", type=int, default=64,
                    help="total batch over all workers; divided evenly between ranks")
    ap.add_argument("--lr", type=float, default=2e-4, help="AdamW lr tuned for --global-batch")
    ap.add_argument("--weight-decay", type=float, default=1e-2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--max-depth", type=float, default=20.0)
    ap.add_argument("--save-every", type=int, default=5)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    return ap
