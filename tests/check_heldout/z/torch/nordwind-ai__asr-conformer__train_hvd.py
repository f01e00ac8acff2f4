#!/usr/bin/env python
# Keyword-level ASR classifier, Horovod edition.
# History: started as train_ddp.py (torchrun) in 2021, moved to Horovod in 2023 when the
# cluster switched to mpirun-only allocations. See docs/cluster.md (internal wiki).
import argparse
import csv
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class FeatureManifest(Dataset):
    """Rows of `path,label` pointing at precomputed log-mel .npy files (T x 80)."""

    def __init__(self, manifest, max_frames=400):
        with open(manifest) as f:
            self.rows = [(r[0], int(r[1])) for r in csv.reader(f) if r and not r[0].startswith("#")]
        self.root = os.path.dirname(os.path.abspath(manifest))
        self.max_frames = max_frames

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        path, label = self.rows[i]
        feats = np.load(os.path.join(self.root, path)).astype(np.float32)[: self.max_frames]
        pad = self.max_frames - feats.shape[0]
        if pad > 0:
            feats = np.pad(feats, ((0, pad), (0, 0)))
        return torch.from_numpy(feats), label


class ConvSubsampleEncoder(nn.Module):
    def __init__(self, n_mels=80, d_model=144, n_classes=35, n_layers=4):
        super().__init__()
        self.subsample = nn.Sequential(
            nn.Conv1d(n_mels, d_model, 3, stride=2, padding=1), nn.GELU(),
            nn.Conv1d(d_model, d_model, 3, stride=2, padding=1), nn.GELU())
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=4 * d_model, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):                      # x: B x T x F
        x = self.subsample(x.transpose(1, 2)).transpose(1, 2)
        return self.head(self.encoder(x).mean(dim=1))


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train-manifest", default="data/train.csv")
    p.add_argument("--val-manifest", default="data/val.csv")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--log-every", type=int, default=50)
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(1234)
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    train_set = FeatureManifest(args.train_manifest)
    val_set = FeatureManifest(args.val_manifest)
    # was: DistributedSampler(train_set) under torchrun
    train_sampler = DistributedSampler(train_set, shuffle=True)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, pin_memory=use_cuda, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, sampler=val_sampler,
                            num_workers=args.workers)

    model = ConvSubsampleEncoder().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-2)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    os.makedirs(args.ckpt_dir, exist_ok=True)
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            if step % args.log_every == 0 and hvd.rank() == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} ({time.time() - t0:.1f}s)")

        model.eval()
        correct = torch.zeros(1)
        seen = torch.zeros(1)
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x.to(device)).argmax(dim=1).cpu()
                correct += (pred == y).sum()
                seen += y.numel()
        correct = hvd.allreduce(correct, op=hvd.Sum, name="val_correct")
        seen = hvd.allreduce(seen, op=hvd.Sum, name="val_seen")
        if hvd.rank() == 0:
            print(f"epoch {epoch} val_acc {(correct / seen).item():.4f}")

        if hvd.local_rank() == 0:
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       os.path.join(args.ckpt_dir, f"conformer_e{epoch:03d}.pt"))


if __name__ == "__main__":
    main()
