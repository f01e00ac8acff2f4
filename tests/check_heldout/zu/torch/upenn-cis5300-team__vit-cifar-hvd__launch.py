#!/usr/bin/env python
"""Entry point used by our sbatch scripts:  srun python launch.py --exp vit_s"""
import argparse
import json

import torch
import horovod.torch as hvd

from vitproj.train import run

EXPERIMENTS = {
    "vit_t": {"model": {"dim": 192, "depth": 6, "heads": 3}, "lr": 1e-3, "batch_size": 128},
    "vit_s": {"model": {"dim": 384, "depth": 8, "heads": 6}, "lr": 5e-4, "batch_size": 96},
}
BASE = {"seed": 5300, "epochs": 50, "wd": 0.05, "data_root": "./data", "out": "results"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exp", choices=sorted(EXPERIMENTS), default="vit_t")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()

    cfg = dict(BASE, **EXPERIMENTS[args.exp])
    for key in ("epochs", "out"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    if hvd.rank() == 0:
        print(json.dumps(cfg, indent=2))
    best = run(cfg, device)
    if hvd.rank() == 0:
        print(f"best val acc: {best:.4f}")


if __name__ == "__main__":
    main()
