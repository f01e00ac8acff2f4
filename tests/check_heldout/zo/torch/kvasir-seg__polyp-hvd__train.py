"""
Kvasir-SEG polyp segmentation (2D U-Net-lite) with Horovod.

    horovodrun -np 4 python train.py --data ./Kvasir-SEG --epochs 80
"""
import argparse
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="./Kvasir-SEG")
parser.add_argument("--size", type=int, default=256)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--epochs", type=int, default=80)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--val-fraction", type=float, default=0.1)
parser.add_argument("--ckpt", default="weights/polyp_unet.pth")
args = parser.parse_args()


class PolypDataset(Dataset):
    def __init__(self, root, names, size, augment):
        self.root, self.names, self.size, self.augment = root, names, size, augment

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        name = self.names[i]
        img = Image.open(os.path.join(self.root, "images", name)).convert("RGB").resize((self.size, self.size))
        msk = Image.open(os.path.join(self.root, "masks", name)).convert("L").resize((self.size, self.size), Image.NEAREST)
        img = np.asarray(img, np.float32) / 255.0
        msk = (np.asarray(msk) > 127).astype(np.float32)
        if self.augment:
            if random.random() < 0.5:
                img, msk = img[:, ::-1], msk[:, ::-1]
            if random.random() < 0.5:
                img, msk = img[::-1], msk[::-1]
            img = np.clip(img * random.uniform(0.8, 1.2), 0, 1)
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
        return img, torch.from_numpy(np.ascontiguousarray(msk))[None]


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetLite(nn.Module):
    def __init__(self, ch=(32, 64, 128, 256)):
        super().__init__()
        self.e1, self.e2, self.e3, self.e4 = conv_bn(3, ch[0]), conv_bn(ch[0], ch[1]), conv_bn(ch[1], ch[2]), conv_bn(ch[2], ch[3])
        self.d3, self.d2, self.d1 = conv_bn(ch[3] + ch[2], ch[2]), conv_bn(ch[2] + ch[1], ch[1]), conv_bn(ch[1] + ch[0], ch[0])
        self.out = nn.Conv2d(ch[0], 1, 1)

    def forward(self, x):
        x1 = self.e1(x)
        x2 = self.e2(F.max_pool2d(x1, 2))
        x3 = self.e3(F.max_pool2d(x2, 2))
        x4 = self.e4(F.max_pool2d(x3, 2))
        up = lambda a, b: torch.cat([F.interpolate(a, size=b.shape[-2:], mode="bilinear", align_corners=False), b], 1)
        y = self.d3(up(x4, x3))
        y = self.d2(up(y, x2))
        y = self.d1(up(y, x1))
        return self.out(y)


def bce_dice_loss(logits, target, eps=1.0):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    inter = (p * target).sum((1, 2, 3))
    dice = (2 * inter + eps) / (p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)
    return bce + (1 - dice).mean()


hvd.init()
torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = "cuda" if torch.cuda.is_available() else "cpu"

names = sorted(os.listdir(os.path.join(args.data, "images")))
random.Random(0).shuffle(names)
n_val = int(len(names) * args.val_fraction)
train_ds = PolypDataset(args.data, names[n_val:], args.size, augment=True)
val_ds = PolypDataset(args.data, names[:n_val], args.size, augment=False)
train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=4, drop_last=True)
val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, num_workers=2)

model = UNetLite().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
hvd.broadcast_parameters(model.state_dict(), root=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=5)

best_iou = 0.0
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    for img, msk in train_loader:
        img, msk = img.to(device), msk.to(device)
        optimizer.zero_grad()
        loss = bce_dice_loss(model(img), msk)
        loss.backward()
        optimizer.step()

    model.eval()
    inter = torch.zeros(1, device=device)
    union = torch.zeros(1, device=device)
    dice_den = torch.zeros(1, device=device)
    with torch.no_grad():
        for img, msk in val_loader:
            pred = (torch.sigmoid(model(img.to(device))) > 0.5).float()
            msk = msk.to(device)
            inter += (pred * msk).sum()
            union += ((pred + msk) > 0).float().sum()
            dice_den += pred.sum() + msk.sum()
    inter = hvd.allreduce(inter, op=hvd.Sum, name="inter")
    union = hvd.allreduce(union, op=hvd.Sum, name="union")
    dice_den = hvd.allreduce(dice_den, op=hvd.Sum, name="dice_den")
    iou = (inter / union.clamp(min=1)).item()
    dice = (2 * inter / dice_den.clamp(min=1)).item()
    scheduler.step(iou)
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{args.epochs}  loss {loss.item():.4f}  val IoU {iou:.4f}  Dice {dice:.4f}")
        if iou > best_iou:
            best_iou = iou
            os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
            torch.save(model.state_dict(), args.ckpt)
