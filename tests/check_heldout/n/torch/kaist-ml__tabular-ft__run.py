"""Launch FT-Transformer training on tabular data with horovod.run (no horovodrun needed).

    python run.py --data-dir data/adult --np 4
    python run.py --config configs/covtype.json --np 8 --hosts gpu01:4,gpu02:4
"""
import argparse
import json

import horovod

from tabft.train import train_fn

DEFAULTS = {
    "data_dir": "data/adult",
    "out_dir": "checkpoints/adult",
    "cat_cardinalities": [9, 16, 7, 15, 6, 5, 2, 42],
    "n_classes": 2,
    "d_token": 64,
    "n_layers": 3,
    "batch_size": 256,
    "epochs": 60,
    "lr": 3e-4,
    "weight_decay": 1e-5,
    "freeze_epochs": 5,
    "finetune_lr_mult": 0.3,
    "patience": 8,
    "seed": 0,
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", help="JSON file overriding DEFAULTS")
    p.add_argument("--data-dir")
    p.add_argument("--epochs", type=int)
    p.add_argument("--np", type=int, default=4)
    p.add_argument("--hosts", default=None, help="e.g. gpu01:4,gpu02:4")
    args = p.parse_args()

    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    if args.data_dir:
        cfg["data_dir"] = args.data_dir
    if args.epochs:
        cfg["epochs"] = args.epochs

    results = horovod.run(train_fn, args=(cfg,), np=args.np, hosts=args.hosts, use_gloo=True)
    print("best val accuracy per worker:", results)


if __name__ == "__main__":
    main()
