"""ResNet-style MLP for tabular binary classification (HIGGS), Horovod data parallel.

    horovodrun -np 4 python train_tabular.py --train data/higgs_train.parquet --val data/higgs_val.parquet
"""
import argparse
import math
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


# --------------------------------------------------------------------------- metrics
class MeanMetric:
    """Running mean that is synchronised over workers on compute()."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = torch.zeros(2, dtype=torch.float64)

    def update(self, value, weight=1):
        self.total += torch.tensor([float(value) * weight, float(weight)], dtype=torch.float64)

    def compute(self):
        t = hvd.allreduce(self.total, op=hvd.Sum, name=f"{self.name}.mean")
        return (t[0] / t[1]).item()


class BinaryAUROC:
    """Exact AUROC over the predictions of all workers (gathered on compute)."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.scores, self.targets = [], []

    def update(self, scores, targets):
        self.scores.append(scores.detach().float().cpu())
        self.targets.append(targets.detach().float().cpu())

    def compute(self):
        scores = hvd.allgather(torch.cat(self.scores), name=f"{self.name}.scores")
        targets = hvd.allgather(torch.cat(self.targets), name=f"{self.name}.targets")
        order = torch.argsort(scores, descending=True)
        t = targets[order]
        tps = torch.cumsum(t, 0)
        fps = torch.cumsum(1 - t, 0)
        tpr = tps / tps[-1].clamp(min=1)
        fpr = fps / fps[-1].clamp(min=1)
        return torch.trapz(tpr, fpr).item()


# ----------------------------------------------------------------------------- model
class ResBlock(nn.Module):
    def __init__(self, d, hidden, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.BatchNorm1d(d), nn.Linear(d, hidden), nn.ReLU(),
                                 nn.Dropout(dropout), nn.Linear(hidden, d), nn.Dropout(dropout))

    def forward(self, x):
        return x + self.net(x)


class TabResNet(nn.Module):
    def __init__(self, n_features, d=256, hidden=512, blocks=4, dropout=0.15):
        super().__init__()
        self.inp = nn.Linear(n_features, d)
        self.blocks = nn.Sequential(*[ResBlock(d, hidden, dropout) for _ in range(blocks)])
        self.head = nn.Sequential(nn.BatchNorm1d(d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, x):
        return self.head(self.blocks(self.inp(x))).squeeze(-1)


def load_parquet(path, label="label"):
    df = pd.read_parquet(path)
    y = torch.tensor(df.pop(label).values, dtype=torch.float32)
    x = torch.tensor(df.values, dtype=torch.float32)
    return x, y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True)
    p.add_argument("--val", required=True)
    p.add_argument("--out", default="checkpoints/tabresnet")
    p.add_argument("--epochs", type=int, default=60)
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker learning rate")
    p.add_argument("--warmup-epochs", type=float, default=3)
    p.add_argument("--ckpt-every", type=int, default=5)
    args = p.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        device = torch.device(f"cuda:{hvd.local_rank()}")
    else:
        device = torch.device("cpu")

    x_tr, y_tr = load_parquet(args.train)
    x_va, y_va = load_parquet(args.val)
    mu, sd = x_tr.mean(0), x_tr.std(0).clamp(min=1e-6)
    x_tr, x_va = (x_tr - mu) / sd, (x_va - mu) / sd
    train_set, val_set = TensorDataset(x_tr, y_tr), TensorDataset(x_va, y_va)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), seed=11)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=4 * args.batch_size, sampler=val_sampler)

    model = TabResNet(x_tr.shape[1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    # Goyal et al.: ramp from the single-worker lr to size x lr over the warm-up, then cosine
    steps_per_epoch = len(train_loader)
    warmup = args.warmup_epochs * steps_per_epoch
    total = args.epochs * steps_per_epoch

    def lr_factor(step):
        if step < warmup:
            return 1.0 + (hvd.size() - 1.0) * step / warmup
        return hvd.size() * 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)

    start_epoch = 0
    last = os.path.join(args.out, "last.pt")
    if hvd.rank() == 0 and os.path.exists(last):
        ckpt = torch.load(last, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor,
                                                  last_epoch=start_epoch * steps_per_epoch - 1) \
        if start_epoch else scheduler

    criterion = nn.BCEWithLogitsLoss()
    train_loss, val_loss, val_auc = MeanMetric("train_loss"), MeanMetric("val_loss"), BinaryAUROC("val_auc")
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        train_loss.reset()
        for xb, yb in train_loader:
            xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
            loss = criterion(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            train_loss.update(loss.item(), len(yb))

        model.eval()
        val_loss.reset()
        val_auc.reset()
        with torch.no_grad():
            for xb, yb in val_loader:
                xb, yb = xb.to(device), yb.to(device)
                logits = model(xb)
                val_loss.update(criterion(logits, yb).item(), len(yb))
                val_auc.update(torch.sigmoid(logits), yb)
        tl, vl, auc = train_loss.compute(), val_loss.compute(), val_auc.compute()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} train {tl:.4f} val {vl:.4f} AUROC {auc:.4f} "
                  f"lr {scheduler.get_last_lr()[0]:.2e}", flush=True)
            if (epoch + 1) % args.ckpt_every == 0 or epoch + 1 == args.epochs:
                os.makedirs(args.out, exist_ok=True)
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch,
                            "norm": (mu, sd)}, last)


if __name__ == "__main__":
    main()
