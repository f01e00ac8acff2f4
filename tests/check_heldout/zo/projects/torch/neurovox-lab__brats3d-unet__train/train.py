#!/usr/bin/env python
"""Patch-based 3D U-Net training on BraTS 2021, one fold per run.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --data-root /data/brats21 --fold 0
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from brats3d import dist
from brats3d.data import BratsPatchDataset, kfold_split, list_cases
from brats3d.losses import DiceFocalLoss, dice_per_class
from brats3d.model import UNet3D

REGIONS = ("NCR", "ED", "ET")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data-root", default="data/brats21")
    p.add_argument("--fold", type=int, default=0)
    p.add_argument("--n-folds", type=int, default=5)
    p.add_argument("--patch", type=int, default=96)
    p.add_argument("--patches-per-case", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=2, help="patches per worker")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--wd", type=float, default=1e-5)
    p.add_argument("--val-every", type=int, default=5)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--out", default="runs/unet3d")
    p.add_argument("--seed", type=int, default=2021)
    return p.parse_args()


def train_one_epoch(model, loader, optimizer, criterion, scaler, device, amp):
    model.train()
    running, n = 0.0, 0
    for img, seg in loader:
        img, seg = img.to(device, non_blocking=True), seg.to(device, non_blocking=True)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=amp):
            loss = criterion(model(img), seg)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 12.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        running += loss.item()
        n += 1
    return running / max(n, 1)


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    scores = [dice_per_class(model(img.to(device)), seg.to(device)) for img, seg in loader]
    return torch.stack(scores).mean(0)


def main():
    args = parse_args()
    device = dist.setup(args.seed)

    cases = list_cases(args.data_root)
    train_cases, val_cases = kfold_split(cases, args.n_folds, args.fold)
    train_ds = BratsPatchDataset(args.data_root, train_cases, args.patch, args.patches_per_case)
    val_ds = BratsPatchDataset(args.data_root, val_cases, args.patch, train=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=1, sampler=val_sampler, num_workers=args.workers)
    dist.log(f"fold {args.fold}: {len(train_cases)} train / {len(val_cases)} val cases, {hvd.size()} workers")

    model = UNet3D().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=args.wd)
    optimizer = dist.wrap(model, optimizer)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    scaler = torch.amp.GradScaler(device.type, enabled=args.amp and device.type == "cuda")
    criterion = DiceFocalLoss(gamma=2.0)

    fold_dir = os.path.join(args.out, f"fold{args.fold}")
    if dist.is_root():
        os.makedirs(fold_dir, exist_ok=True)
    best, history = -1.0, []
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        loss = train_one_epoch(model, train_loader, optimizer, criterion, scaler, device, args.amp)
        scheduler.step()
        dist.log(f"epoch {epoch:03d} loss {loss:.4f} ({time.time() - t0:.0f}s)")
        if (epoch + 1) % args.val_every and epoch + 1 != args.epochs:
            continue
        dice = validate(model, val_loader, device)
        mean_dice = dice.mean().item()
        if dist.is_root():
            history.append({"epoch": epoch, "dice": dice.tolist(), "mean": mean_dice})
            print("  val dice " + " ".join(f"{r}={d:.3f}" for r, d in zip(REGIONS, dice.tolist()))
                  + f" mean={mean_dice:.4f}", flush=True)
            if mean_dice > best:
                best = mean_dice
                torch.save({"epoch": epoch, "model": model.state_dict(), "dice": mean_dice},
                           os.path.join(fold_dir, "best.pt"))
            with open(os.path.join(fold_dir, "history.json"), "w") as f:
                json.dump(history, f, indent=1)
    dist.log(f"fold {args.fold} done, best mean dice {best:.4f}")


if __name__ == "__main__":
    main()
