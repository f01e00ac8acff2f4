"""Launch summarization training on this node's GPUs.

    python launch.py --config configs/base.json --np 4
"""
import argparse

import horovod

from summ import load_config
from summ.engine import train_fn


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--np", type=int, default=4)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--output-dir", dest="output_dir")
    return ap.parse_args()


if __name__ == "__main__":
    args = parse()
    cfg = load_config(args.config, lr=args.lr, epochs=args.epochs, output_dir=args.output_dir)
    results = horovod.run(train_fn, args=(cfg,), np=args.np, use_gloo=True)
    print("final valid token loss per worker:", results)
