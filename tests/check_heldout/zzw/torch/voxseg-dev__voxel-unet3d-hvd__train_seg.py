#!/usr/bin/env python
"""Semantic segmentation of voxelised indoor scans (ScanNet-style, 32^3 crops) with a small 3D U-Net.

Mixed precision + Horovod. Each .npz crop holds `occ` (D,H,W) float occupancy and `label` (D,H,W) int64
with 255 = ignore.

    horovodrun -np 8 python train_seg.py --root data/scannet_vox32 --amp
"""
import argparse
import glob
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

IGNORE = 255


class VoxelCrops(Dataset):
    def __init__(self, root, split, flip=False):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.flip = flip

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        occ, lbl = d["occ"].astype(np.float32), d["label"].astype(np.int64)
        if self.flip and np.random.rand() < 0.5:
            occ, lbl = occ[:, :, ::-1].copy(), lbl[:, :, ::-1].copy()
        return torch.from_numpy(occ)[None], torch.from_numpy(lbl)


def block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU(True),
                         nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU(True))


class UNet3D(nn.Module):
    def __init__(self, num_classes, c=16):
        super().__init__()
        self.enc1, self.enc2, self.mid = block(1, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.up2, self.dec2 = nn.ConvTranspose3d(4 * c, 2 * c, 2, 2), block(4 * c, 2 * c)
        self.up1, self.dec1 = nn.ConvTranspose3d(2 * c, c, 2, 2), block(2 * c, c)
        self.out = nn.Conv3d(c, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool3d(e1, 2))
        m = self.mid(F.max_pool3d(e2, 2))
        d2 = self.dec2(torch.cat([self.up2(m), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.out(d1)


def confusion(pred, target, n):
    keep = target != IGNORE
    return torch.bincount(n * target[keep] + pred[keep], minlength=n * n).view(n, n)


def evaluate(model, loader, device, num_classes, amp):
    model.eval()
    conf = torch.zeros(num_classes, num_classes, dtype=torch.float64)
    with torch.no_grad(), torch.autocast(device.type, enabled=amp):
        for occ, lbl in loader:
            pred = model(occ.to(device)).argmax(1).cpu()
            conf += confusion(pred.view(-1), lbl.view(-1), num_classes).double()
    conf = hvd.allreduce(conf, op=hvd.Sum, name="val_confusion")
    iou = conf.diag() / (conf.sum(0) + conf.sum(1) - conf.diag()).clamp(min=1)
    return iou.mean().item(), (conf.diag().sum() / conf.sum().clamp(min=1)).item()


def main(args):
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.cpu
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    train_set = VoxelCrops(args.root, "train", flip=True)
    val_set = VoxelCrops(args.root, "val")
    train_sampler = DistributedSampler(train_set, hvd.size(), hvd.rank(), shuffle=True, seed=args.seed)
    val_sampler = DistributedSampler(val_set, hvd.size(), hvd.rank(), shuffle=False)
    kw = dict(num_workers=args.workers, pin_memory=use_cuda)
    train_loader = DataLoader(train_set, args.batch_size, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, args.batch_size, sampler=val_sampler, **kw)

    model = UNet3D(args.num_classes).to(device)
    base_lr = args.base_lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9, weight_decay=1e-4, nesterov=True)
    total = args.epochs * len(train_loader)
    warm = args.warmup_epochs * len(train_loader)
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (total - warm))))
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    start = 0
    if args.resume and os.path.isfile(args.resume):
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        sched.load_state_dict(state["sched"])
        start = state["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.fp16_allreduce
                                         else hvd.Compression.none)

    for epoch in range(start, args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for occ, lbl in train_loader:
            occ, lbl = occ.to(device, non_blocking=True), lbl.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device.type, enabled=args.amp and use_cuda):
                loss = F.cross_entropy(model(occ), lbl, ignore_index=IGNORE)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            sched.step()

        miou, acc = evaluate(model, val_loader, device, args.num_classes, args.amp and use_cuda)
        if hvd.rank() == 0:
            print(f"ep {epoch} loss {loss.item():.4f} mIoU {miou:.4f} acc {acc:.4f} "
                  f"lr {sched.get_last_lr()[0]:.2e} {time.time() - t0:.0f}s", flush=True)
            os.makedirs(args.out, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optim": optimizer.state_dict(),
                        "sched": sched.state_dict()}, os.path.join(args.out, "last.pth"))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--root", default="data/scannet_vox32")
    p.add_argument("--out", default="runs/unet3d")
    p.add_argument("--num-classes", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=8, help="crops per GPU")
    p.add_argument("--base-lr", type=float, default=0.01, help="lr for one GPU")
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--resume", default="")
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--cpu", action="store_true")
    return p.parse_args()


if __name__ == "__main__":
    main(parse_args())
