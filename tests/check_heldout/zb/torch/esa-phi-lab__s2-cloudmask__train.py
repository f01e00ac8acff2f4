#!/usr/bin/env python
# Sentinel-2 L1C cloud / cloud-shadow masking.
# Stage 1: decoder only on top of the SSL-pretrained encoder; stage 2: full fine-tune.
#   mpirun -np 16 -bind-to none -map-by slot -x NCCL_DEBUG=WARN python train.py --tiles /data/s2/tiles_512
import argparse
import csv
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

BANDS = 13
CLASSES = ("clear", "thick", "thin", "shadow")


class S2Tiles(Dataset):
    def __init__(self, folder, split, crop=256, augment=False):
        self.files = sorted(glob.glob(os.path.join(folder, split, "*.npz")))
        self.crop, self.augment = crop, augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with np.load(self.files[i]) as z:
            x = z["toa"].astype(np.float32) / 10000.0   # (13, H, W) reflectance * 1e4
            y = z["label"].astype(np.int64)
        c = self.crop
        if self.augment:
            r0 = np.random.randint(0, x.shape[1] - c + 1)
            c0 = np.random.randint(0, x.shape[2] - c + 1)
            x, y = x[:, r0:r0 + c, c0:c0 + c], y[r0:r0 + c, c0:c0 + c]
            if np.random.rand() < 0.5:
                x, y = x[:, :, ::-1], y[:, ::-1]
        else:
            x, y = x[:, :c, :c], y[:c, :c]
        return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y))


class CloudNet(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        w = width
        self.encoder = nn.Sequential(
            nn.Conv2d(BANDS, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(inplace=True),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(inplace=True),
            nn.Conv2d(2 * w, 4 * w, 3, stride=2, padding=1), nn.BatchNorm2d(4 * w), nn.ReLU(inplace=True))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2), nn.ReLU(inplace=True),
            nn.ConvTranspose2d(2 * w, w, 2, stride=2), nn.ReLU(inplace=True),
            nn.Conv2d(w, len(CLASSES), 1))

    def forward(self, x):
        return self.decoder(self.encoder(x))


def run_epoch(model, loader, optimizer, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    return loss.item()


@torch.no_grad()
def validate(model, loader, device):
    model.eval()
    inter = torch.zeros(len(CLASSES), dtype=torch.float64)
    union = torch.zeros(len(CLASSES), dtype=torch.float64)
    for x, y in loader:
        pred = model(x.to(device)).argmax(1).cpu()
        for k in range(len(CLASSES)):
            inter[k] += ((pred == k) & (y == k)).sum()
            union[k] += ((pred == k) | (y == k)).sum()
    inter = hvd.allreduce(inter, op=hvd.Sum, name="val_inter")
    union = hvd.allreduce(union, op=hvd.Sum, name="val_union")
    return (inter / union.clamp(min=1)).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tiles", default="/data/s2/tiles_512")
    ap.add_argument("--encoder-ckpt", default="/models/ssl/s2_encoder_moco_v2.pt")
    ap.add_argument("--out", default="runs/cloudmask")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--ft-lr", type=float, default=1e-4)
    ap.add_argument("--decoder-epochs", type=int, default=10)
    ap.add_argument("--ft-epochs", type=int, default=30)
    args = ap.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    train_ds = S2Tiles(args.tiles, "train", augment=True)
    val_ds = S2Tiles(args.tiles, "val")
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=4,
                              drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, num_workers=2)

    model = CloudNet().to(device)
    if os.path.exists(args.encoder_ckpt):
        model.encoder.load_state_dict(torch.load(args.encoder_ckpt, map_location="cpu"))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)

    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "cloudnet.pt")
    history = []

    # ---- stage 1: frozen encoder
    for p in model.encoder.parameters():
        p.requires_grad = False
    optimizer = torch.optim.AdamW(model.decoder.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    epoch = 0
    for _ in range(args.decoder_epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        loss = run_epoch(model, train_loader, optimizer, device)
        iou = validate(model, val_loader, device)
        history.append((epoch, "decoder", loss, *iou))
        if hvd.rank() == 0:
            print(f"[decoder] epoch {epoch} loss {loss:.4f} mIoU {iou.mean():.4f} ({time.time() - t0:.0f}s)")
        epoch += 1

    # ---- stage 2: unfreeze everything, smaller lr
    for p in model.encoder.parameters():
        p.requires_grad = True
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.ft_lr * hvd.size(), weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.ft_epochs)
    for _ in range(args.ft_epochs):
        train_sampler.set_epoch(epoch)
        loss = run_epoch(model, train_loader, optimizer, device)
        scheduler.step()
        iou = validate(model, val_loader, device)
        history.append((epoch, "finetune", loss, *iou))
        if hvd.rank() == 0:
            print(f"[finetune] epoch {epoch} loss {loss:.4f} IoU " + " ".join(f"{v:.3f}" for v in iou))
        torch.save({"epoch": epoch, "model": model.state_dict()}, ckpt_path)
        epoch += 1

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "history.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["epoch", "stage", "loss"] + [f"iou_{c}" for c in CLASSES])
            w.writerows(history)


if __name__ == "__main__":
    main()
