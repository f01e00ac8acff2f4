#!/usr/bin/env python3
"""U-Net fault segmentation on seismic patches.

cluster:  srun --mpi=pmix python train.py --data /scratch/faultseg      (horovod)
DGX:      torchrun --nproc_per_node 8 train.py --backend nccl
laptop:   python train.py --backend none
"""
import argparse
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from seis import comm
from seis.dataset import FaultPatches
from seis.schedule import warmup_cosine
from seis.trainer import prepare, run_epoch


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.d1, self.d2, self.mid = block(1, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.u2, self.c2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, 2), block(4 * c, 2 * c)
        self.u1, self.c1 = nn.ConvTranspose2d(2 * c, c, 2, 2), block(2 * c, c)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        x1 = self.d1(x)
        x2 = self.d2(nn.functional.max_pool2d(x1, 2))
        m = self.mid(nn.functional.max_pool2d(x2, 2))
        y = self.c2(torch.cat([self.u2(m), x2], 1))
        y = self.c1(torch.cat([self.u1(y), x1], 1))
        return self.out(y)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="horovod", choices=["horovod", "nccl", "none"])
    ap.add_argument("--data", default=None)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--out", default="results")
    args = ap.parse_args()

    comm.setup(args.backend)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(2024)

    train_set, val_set = FaultPatches(args.data, "train"), FaultPatches(args.data, "val", n_synth=64)
    train_sampler = DistributedSampler(train_set, num_replicas=comm.size(), rank=comm.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=comm.size(), rank=comm.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch, sampler=val_sampler)

    model = UNet().to(device)
    peak_lr = args.lr * comm.size()
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr)
    set_lr = warmup_cosine(optimizer, peak_lr, args.warmup, args.epochs)
    model, optimizer = prepare(model, optimizer)

    best = float("inf")
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        lr = set_lr(epoch)
        train_loss = run_epoch(model, train_loader, optimizer, device, train=True)
        val_loss = run_epoch(model, val_loader, optimizer, device, train=False)
        if comm.is_root():
            print(f"[{epoch:03d}] lr={lr:.2e} train={train_loss:.4f} val={val_loss:.4f}", flush=True)
            if val_loss < best:
                best = val_loss
                os.makedirs(args.out, exist_ok=True)
                net = model.module if hasattr(model, "module") else model
                torch.save(net.state_dict(), os.path.join(args.out, "unet_best.pt"))


if __name__ == "__main__":
    main()
