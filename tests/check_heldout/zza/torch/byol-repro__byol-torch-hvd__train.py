#!/usr/bin/env python
# BYOL pre-training on STL-10 (unlabeled split), multi-GPU with Horovod.
#   horovodrun -np 4 python train.py --epochs 100 --amp
import argparse
import dataclasses
import logging
import os

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset
from torchvision.datasets import STL10

from byol import BYOL, TrainConfig
from byol.augment import byol_views
from byol.trainer import Trainer


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        if f.type is bool or f.type == "bool":
            parser.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, action="store_true")
        else:
            parser.add_argument(f"--{f.name.replace('_', '-')}", dest=f.name, type=type(f.default),
                                default=f.default)
    parser.add_argument("--resume", default="")
    ns = parser.parse_args()
    resume = ns.__dict__.pop("resume")
    return TrainConfig(**vars(ns)), resume


def shard_dataset(ds, rank, world):
    # strided split, truncated so that every worker runs the same number of steps
    usable = len(ds) // world * world
    return Subset(ds, list(range(rank, usable, world)))


def main():
    cfg, resume = parse_config()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="[%(asctime)s] %(message)s")
    torch.manual_seed(cfg.seed)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")

    full = STL10(cfg.data_dir, split="unlabeled", download=False, transform=byol_views(cfg.image_size))
    train_set = shard_dataset(full, hvd.rank(), hvd.size())
    loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                        num_workers=cfg.workers, pin_memory=True, persistent_workers=cfg.workers > 0)

    model = BYOL().to(device)
    trainer = Trainer(model, cfg, loader, device)
    trainer.resume(resume)
    trainer.sync()

    while trainer.epoch < cfg.epochs:
        trainer.train_epoch()
        if trainer.epoch % cfg.ckpt_every == 0 or trainer.epoch == cfg.epochs:
            trainer.save()


if __name__ == "__main__":
    main()
