#!/usr/bin/env python3
"""Predict protein solubility from precomputed sequence embeddings (ESM mean-pooled, 1280-d).

Inputs: embeddings.npy (N, 1280) float32, labels.npy (N,) {0,1}
Run:    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --emb embeddings.npy --labels labels.npy
"""
import argparse
import logging
import math
import os
import time
from dataclasses import dataclass, fields

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset
import horovod.torch as hvd

log = logging.getLogger("solubility")


@dataclass
class HParams:
    emb: str = "embeddings.npy"
    labels: str = "labels.npy"
    batch_size: int = 128           # per worker
    lr: float = 3e-4                # for one worker; scaled by hvd.size()
    warmup_epochs: int = 2
    epochs: int = 25
    hidden: int = 512
    dropout: float = 0.25
    val_frac: float = 0.1
    split_seed: int = 13
    ckpt: str = "checkpoints/solubility.pt"


def parse_hparams():
    ap = argparse.ArgumentParser()
    for f in fields(HParams):
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return HParams(**vars(ap.parse_args()))


class SolubilityMLP(nn.Module):
    def __init__(self, d_in, hidden, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(d_in), nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden // 2), nn.GELU(), nn.Dropout(dropout), nn.Linear(hidden // 2, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def shard_indices(n, seed, rank, world):
    """Same permutation on every worker (fixed seed); worker r takes every world-th index from r."""
    perm = np.random.RandomState(seed).permutation(n)
    usable = (n // world) * world
    return perm[:usable][rank::world].tolist()


def lr_at(epoch, hp):
    peak = hp.lr * hvd.size()
    if epoch < hp.warmup_epochs:
        return peak * (epoch + 1) / hp.warmup_epochs
    t = (epoch - hp.warmup_epochs) / max(1, hp.epochs - hp.warmup_epochs)
    return peak * 0.5 * (1 + math.cos(math.pi * t))


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(3)  # correct, count, summed loss
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        stats[0] += ((logits > 0).float() == y).sum().item()
        stats[1] += y.numel()
        stats[2] += nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="sum").item()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
    return (stats[0] / stats[1]).item(), (stats[2] / stats[1]).item()


def main():
    hp = parse_hparams()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(message)s")
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    x = torch.from_numpy(np.load(hp.emb)).float()
    y = torch.from_numpy(np.load(hp.labels)).float()
    full = TensorDataset(x, y)
    perm = np.random.RandomState(hp.split_seed).permutation(len(full))
    n_val = int(len(full) * hp.val_frac)
    val_set, train_set = Subset(full, perm[:n_val].tolist()), Subset(full, perm[n_val:].tolist())

    train_part = Subset(train_set, shard_indices(len(train_set), hp.split_seed, hvd.rank(), hvd.size()))
    val_part = Subset(val_set, list(range(hvd.rank(), len(val_set), hvd.size())))
    g = torch.Generator()
    train_loader = DataLoader(train_part, batch_size=hp.batch_size, shuffle=True, generator=g, drop_last=True)
    val_loader = DataLoader(val_part, batch_size=512)

    model = SolubilityMLP(x.shape[1], hp.hidden, hp.dropout).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr_at(0, hp), weight_decay=0.01)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    start_epoch, best = 0, 0.0
    if hvd.rank() == 0 and os.path.isfile(hp.ckpt):
        state = torch.load(hp.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start_epoch, best = state["epoch"] + 1, state["best"]
        log.info("resuming from epoch %d", start_epoch)
    start_epoch, best = hvd.broadcast_object((start_epoch, best), root_rank=0)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    loss_fn = nn.BCEWithLogitsLoss()

    for epoch in range(start_epoch, hp.epochs):
        for group in opt.param_groups:
            group["lr"] = lr_at(epoch, hp)
        g.manual_seed(hp.split_seed * 1000 + epoch)
        model.train()
        t0 = time.time()
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
        acc, val_loss = evaluate(model, val_loader, device)
        log.info("epoch %d  %.1fs  val_loss %.4f  val_acc %.4f", epoch, time.time() - t0, val_loss, acc)
        if hvd.rank() == 0:
            best = max(best, acc)
            os.makedirs(os.path.dirname(hp.ckpt) or ".", exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                        "epoch": epoch, "best": best}, hp.ckpt)
    log.info("best val_acc %.4f", best)


if __name__ == "__main__":
    main()
