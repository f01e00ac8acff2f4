#!/usr/bin/env python3
# PointNet classifier for LArTPC 3-D hit clouds (5 particle classes: e, gamma, mu, pi, p)
# Summit:  jsrun -n 12 -a 1 -g 1 -c 7 python train_hvd.py --data /gpfs/alpine/nph133/proj-shared/lartpc
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

CLASSES = ["electron", "gamma", "muon", "pion", "proton"]


class HitClouds(Dataset):
    """points_{split}.npy: (N, P, 4) float32 (x, y, z, charge), memory mapped; labels_{split}.npy: (N,)"""

    def __init__(self, root, split, n_points=1024):
        self.points = np.load(os.path.join(root, f"points_{split}.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(root, f"labels_{split}.npy"))
        self.n_points = n_points

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        pts = np.array(self.points[i, : self.n_points], dtype=np.float32)
        pts[:, :3] -= pts[:, :3].mean(axis=0, keepdims=True)
        pts[:, 3] = np.log1p(np.clip(pts[:, 3], 0, None))
        return torch.from_numpy(pts.T), int(self.labels[i])


class PointNet(nn.Module):
    def __init__(self, n_classes=5, in_ch=4):
        super().__init__()
        self.mlp1 = nn.Sequential(nn.Conv1d(in_ch, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                                  nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Conv1d(128, 512, 1), nn.BatchNorm1d(512), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.3),
                                  nn.Linear(256, n_classes))

    def forward(self, x):
        return self.head(torch.max(self.mlp1(x), dim=2)[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--n-points", type=int, default=1024)
    parser.add_argument("--ckpt", default="pointnet_lartpc.pt")
    args = parser.parse_args()

    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(42)

    train_set = HitClouds(args.data, "train", args.n_points)
    val_set = HitClouds(args.data, "val", args.n_points)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=4, pin_memory=use_cuda, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler, num_workers=4)

    model = PointNet(len(CLASSES)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    hvd.broadcast_parameters(model.parameters(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (pts, y) in enumerate(train_loader):
            pts, y = pts.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(pts), y)
            loss.backward()
            optimizer.step()
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f}", flush=True)
        scheduler.step()

        model.eval()
        correct, seen = 0, 0
        with torch.no_grad():
            for pts, y in val_loader:
                pred = model(pts.to(device)).argmax(dim=1).cpu()
                correct += (pred == y).sum().item()
                seen += y.numel()
        if hvd.rank() == 0:
            print(f"== epoch {epoch}: val acc {correct / seen:.4f} ({time.time() - t0:.0f}s)", flush=True)
            torch.save({"epoch": epoch, "model": model.state_dict()}, args.ckpt)


if __name__ == "__main__":
    main()
