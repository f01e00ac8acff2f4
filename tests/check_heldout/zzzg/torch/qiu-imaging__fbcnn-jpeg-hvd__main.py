import argparse
import logging

import horovod.torch as hvd
import torch

from engine.trainer import run


def get_args():
    p = argparse.ArgumentParser("FBCNN-style JPEG artifact removal")
    p.add_argument("--train-root", default="data/DIV2K_train_HR")
    p.add_argument("--val-root", default="data/LIVE1")
    p.add_argument("--val-quality", type=int, default=10)
    p.add_argument("--patch", type=int, default=96)
    p.add_argument("--batch-size", type=int, default=8, help="per worker")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--ema-decay", type=float, default=0.999)
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--out-dir", default="runs/fbcnn_hvd")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    logging.basicConfig(level=logging.INFO)
    run(args)


if __name__ == "__main__":
    main()
