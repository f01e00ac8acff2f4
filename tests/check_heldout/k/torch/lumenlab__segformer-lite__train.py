#!/usr/bin/env python
"""Train SegFormer-lite on N GPUs.

    horovodrun -np 8 -H node1:4,node2:4 python tools/train.py --config configs/segformer_b0.yaml
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

from seglite.config import load_config  # noqa: E402
from seglite.trainer import Trainer  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description="SegFormer-lite training")
    parser.add_argument("--config", default="configs/segformer_b0.yaml",
                        help="YAML file with data/model/optim/train sections")
    parser.add_argument("--resume", default="", help="checkpoint to resume from")
    parser.add_argument("opts", nargs=argparse.REMAINDER,
                        help="overrides such as optim.base_lr=1e-4")
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = load_config(args.config, args.opts)
    if args.resume:
        cfg.train.resume = args.resume
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
