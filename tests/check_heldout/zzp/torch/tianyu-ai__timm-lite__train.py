#!/usr/bin/env python
import argparse
from types import SimpleNamespace

import torch
import yaml
import horovod.torch as hvd

from timmlite.trainer import Trainer


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default="configs/default.yaml")
    parser.add_argument("--data-dir")
    parser.add_argument("--model")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--batch-size", type=int)
    parser.add_argument("--lr", type=float)
    parser.add_argument("--output")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    for key, value in vars(args).items():
        if key != "config" and value is not None:
            cfg[key] = value
    return SimpleNamespace(**cfg)


def main():
    cfg = get_config()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    trainer = Trainer(cfg)
    best = trainer.fit()
    if hvd.rank() == 0:
        print(f"best top-1: {best:.4f}")


if __name__ == "__main__":
    main()
