#!/usr/bin/env python
"""Train a video classifier with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --config configs/ucf101.json
"""
import argparse

from vidcls import dist
from vidcls.config import load_config
from vidcls.data import build_loader
from vidcls.model import build_model
from vidcls.optim import build_optimizer, build_scheduler
from vidcls.trainer import Trainer


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/ucf101.json")
    p.add_argument("--resume", default="", help="checkpoint to resume from")
    p.add_argument("--no-cuda", action="store_true")
    p.add_argument("--opts", nargs="*", default=[], help="key=value overrides, e.g. train.epochs=10")
    return p.parse_args()


def main():
    args = parse_args()
    device = dist.setup(use_cuda=not args.no_cuda)
    cfg = load_config(args.config, args.opts)

    train_loader, train_sampler = build_loader(cfg, "train", train=True)
    val_loader, _ = build_loader(cfg, "val", train=False)

    model = build_model(cfg).to(device)
    optimizer = dist.wrap_optimizer(build_optimizer(cfg, model), model)
    scheduler = build_scheduler(cfg, optimizer, len(train_loader))

    trainer = Trainer(cfg, model, optimizer, scheduler, device, train_loader, train_sampler, val_loader)
    trainer.resume(args.resume)
    best = trainer.fit()
    if dist.is_master():
        print(f"best val acc {best:.4f}")


if __name__ == "__main__":
    main()
