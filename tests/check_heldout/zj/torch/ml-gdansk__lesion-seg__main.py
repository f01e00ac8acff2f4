# -*- coding: utf-8 -*-
"""Lesion segmentation on 2-D CT slices, multi-GPU with Horovod.

    mpirun -np 4 python main.py --train data/train.npz --val data/val.npz --epochs 60
"""
import argparse
import os
import time

import horovod.torch as hvd
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from segkit import DATASETS, MODELS, build_from_cfg
from segkit.engine import train_one_epoch, validate
from segkit.optim import build_optimizers

CONFIG = dict(
    model=dict(type="MiniUNet", in_channels=1, num_classes=2, base=16),
    train_set=dict(type="NpzSlices", flip=True),
    val_set=dict(type="NpzSlices", flip=False),
    optim=dict(lr=0.01, backbone_lr_mult=0.1, weight_decay=1e-4),
    batch_size=16,
    freeze_epochs=5,
)


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="data/train.npz")
    parser.add_argument("--val", default="data/val.npz")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=CONFIG["batch_size"])
    parser.add_argument("--out", default="checkpoints")
    parser.add_argument("--workers", type=int, default=4)
    return parser.parse_args()


def log(epoch, it, loss):
    if hvd.rank() == 0:
        print(f"[{time.strftime('%H:%M:%S')}] epoch {epoch} it {it} loss {loss:.4f}", flush=True)


def run(args, cfg):
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = build_from_cfg(cfg["train_set"], DATASETS, path=args.train)
    val_set = build_from_cfg(cfg["val_set"], DATASETS, path=args.val)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=args.workers)

    model = build_from_cfg(cfg["model"], MODELS).to(device)
    optimizers = build_optimizers(model, cfg["optim"], world_size=hvd.size())
    base_lrs = {k: o.param_groups[0]["lr"] for k, o in optimizers.items()}

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    for opt in optimizers.values():
        hvd.broadcast_optimizer_state(opt, root_rank=0)

    max_it = args.epochs * len(train_loader)
    best = 0.0
    for epoch in range(args.epochs):
        model.freeze_backbone(epoch < cfg["freeze_epochs"])
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizers, base_lrs, epoch, max_it, device, log_fn=log)
        metrics = validate(model, val_loader, device, cfg["model"]["num_classes"])
        if hvd.rank() == 0:
            print(f"epoch {epoch}: dice {metrics['dice']:.4f}", flush=True)
            os.makedirs(args.out, exist_ok=True)
            state = {"epoch": epoch, "model": model.state_dict(), "cfg": cfg, "metrics": metrics}
            torch.save(state, os.path.join(args.out, "last.pth"))
            if metrics["dice"] > best:
                best = metrics["dice"]
                torch.save(state, os.path.join(args.out, "best.pth"))


if __name__ == "__main__":
    run(get_args(), CONFIG)
