#!/usr/bin/env python3
# Distributed UNet training for cell segmentation (2D microscopy tiles, .npy format)
# mpirun -np 4 -bind-to none -map-by slot python 04_unet_segmentation_sampler_default.py --data /project/cells
import argparse
import glob
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class TileDataset(Dataset):
    def __init__(self, root, split="train", augment=False):
        self.images = sorted(glob.glob(os.path.join(root, split, "img_*.npy")))
        self.masks = [p.replace("img_", "mask_") for p in self.images]
        self.augment = augment

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = np.load(self.images[idx]).astype(np.float32) / 255.0
        mask = np.load(self.masks[idx]).astype(np.int64)
        if self.augment and np.random.rand() < 0.5:
            img, mask = img[:, ::-1].copy(), mask[:, ::-1].copy()
        return torch.from_numpy(img)[None], torch.from_numpy(mask)


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_classes=2, base=32):
        super().__init__()
        self.d1 = double_conv(1, base)
        self.d2 = double_conv(base, base * 2)
        self.d3 = double_conv(base * 2, base * 4)
        self.bott = double_conv(base * 4, base * 8)
        self.up3 = nn.ConvTranspose2d(base * 8, base * 4, 2, stride=2)
        self.u3 = double_conv(base * 8, base * 4)
        self.up2 = nn.ConvTranspose2d(base * 4, base * 2, 2, stride=2)
        self.u2 = double_conv(base * 4, base * 2)
        self.up1 = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.u1 = double_conv(base * 2, base)
        self.head = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        c1 = self.d1(x)
        c2 = self.d2(F.max_pool2d(c1, 2))
        c3 = self.d3(F.max_pool2d(c2, 2))
        b = self.bott(F.max_pool2d(c3, 2))
        x = self.u3(torch.cat([self.up3(b), c3], 1))
        x = self.u2(torch.cat([self.up2(x), c2], 1))
        x = self.u1(torch.cat([self.up1(x), c1], 1))
        return self.head(x)


def dice_score(logits, target, eps=1e-6):
    pred = logits.argmax(1)
    inter = ((pred == 1) & (target == 1)).sum().float()
    denom = (pred == 1).sum().float() + (target == 1).sum().float()
    return (2 * inter + eps) / (denom + eps)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--bs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--out", default="unet_ckpt")
    return ap.parse_args()


def train_epoch(model, loader, opt, device):
    model.train()
    total = 0.0
    for img, mask in loader:
        img, mask = img.to(device), mask.to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(img), mask)
        loss.backward()
        opt.step()
        total += loss.item()
    return total / max(1, len(loader))


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    dices = []
    for img, mask in loader:
        img, mask = img.to(device), mask.to(device)
        dices.append(dice_score(model(img), mask).item())
    return float(np.mean(dices))


def main():
    args = parse()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())

    train_set = TileDataset(args.data, "train", augment=True)
    val_set = TileDataset(args.data, "val")
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, batch_size=args.bs, sampler=sampler, num_workers=4, pin_memory=True)
    # every rank scores the full validation set, it is small
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False, num_workers=2)

    model = UNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=5)

    os.makedirs(args.out, exist_ok=True)
    best = 0.0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        tr = train_epoch(model, train_loader, opt, device)
        dice = validate(model, val_loader, device)
        sched.step(dice)
        if hvd.rank() == 0:
            print(f"[{epoch}] loss={tr:.4f} val_dice={dice:.4f}")
        if dice > best:
            best = dice
            torch.save(model.state_dict(), os.path.join(args.out, "unet_best.pth"))
    torch.save(model.state_dict(), os.path.join(args.out, "unet_final.pth"))


if __name__ == "__main__":
    main()
