#!/usr/bin/env python
"""Train PointSeg on block-partitioned indoor scans.

    horovodrun -np 8 python tools/train.py --config configs/default.json --amp
"""
import argparse
import json
import os

from pointseg.engine import Trainer
from pointseg.utils.dist import init_distributed, is_main_process

DEFAULT_CONFIG = os.path.join(os.path.dirname(__file__), "..", "configs", "default.json")


def parse_args():
    parser = argparse.ArgumentParser(description="PointSeg training")
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--work-dir", default="work_dirs/pointseg")
    parser.add_argument("--epochs", type=int, default=None, help="override train.epochs")
    parser.add_argument("--amp", action="store_true", help="train with autocast + GradScaler")
    parser.add_argument("--resume", default="", help="path of a checkpoint to resume from")
    parser.add_argument("--seed", type=int, default=3407)
    return parser.parse_args()


def build_config(args):
    with open(args.config) as f:
        cfg = json.load(f)
    cfg.update(work_dir=args.work_dir, amp=args.amp, resume=args.resume, seed=args.seed)
    if args.epochs is not None:
        cfg["train"]["epochs"] = args.epochs
    return cfg


def main():
    args = parse_args()
    cfg = build_config(args)
    init_distributed(cfg)
    if is_main_process():
        os.makedirs(cfg["work_dir"], exist_ok=True)
        with open(os.path.join(cfg["work_dir"], "config.json"), "w") as f:
            json.dump(cfg, f, indent=2)
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
