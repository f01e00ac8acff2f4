"""Self-supervised monocular depth on KITTI triplets (Horovod, TF2).

    horovodrun -np 4 python train.py --config config/kitti.json
"""
import argparse
import json

from depth.trainer import DepthTrainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config/kitti.json")
    parser.add_argument("--epochs", type=int, default=None, help="override the config")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    if args.epochs is not None:
        cfg["epochs"] = args.epochs
    DepthTrainer(cfg).fit()


if __name__ == "__main__":
    main()
