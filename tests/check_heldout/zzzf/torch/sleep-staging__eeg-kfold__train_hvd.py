#!/usr/bin/env python3
"""Subject-wise k-fold sleep staging (5 classes) with Horovod.

Global batch is fixed (GLOBAL_BS) whatever the number of workers, so the learning
rate from the paper is used as is.  Each rank gets an equal, disjoint slice of the
training subjects' epochs.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument("--npz", default="data/sleepedf_fpz.npz")
p.add_argument("--ckpt-dir", default="ckpt")
p.add_argument("--k", type=int, default=10)
p.add_argument("--global-bs", type=int, default=256)
p.add_argument("--accum", type=int, default=1, help="gradient accumulation steps")
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--patience", type=int, default=6)
p.add_argument("--resume", action="store_true")
args = p.parse_args()

hvd.init()
dev = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
if dev.type == "cuda":
    torch.cuda.set_device(dev)
torch.manual_seed(1234 + hvd.rank())

per_rank_bs = args.global_bs // (hvd.size() * args.accum)
assert per_rank_bs > 0, "global batch too small for this many workers"


class TinySleepNet(nn.Module):
    def __init__(self, n_ch=1, n_cls=5):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv1d(n_ch, 64, 50, stride=6), nn.BatchNorm1d(64), nn.ReLU(), nn.MaxPool1d(8),
            nn.Dropout(0.5), nn.Conv1d(64, 128, 8, padding=4), nn.BatchNorm1d(128), nn.ReLU(),
            nn.AdaptiveMaxPool1d(4))
        self.fc = nn.Linear(128 * 4, n_cls)

    def forward(self, x):
        return self.fc(self.cnn(x).flatten(1))


def my_slice(idx, seed):
    """Same permutation everywhere, equal disjoint slices (remainder dropped)."""
    idx = np.random.RandomState(seed).permutation(idx)
    n = len(idx) // hvd.size()
    return idx[hvd.rank() * n:(hvd.rank() + 1) * n]


def counts(model, X, Y, idx):
    model.eval()
    stats = torch.zeros(3)  # loss sum, correct, n
    with torch.no_grad():
        for s in range(0, len(idx), 512):
            b = idx[s:s + 512]
            x, y = torch.from_numpy(X[b]).to(dev), torch.from_numpy(Y[b]).to(dev)
            out = model(x)
            stats += torch.tensor([F.cross_entropy(out, y, reduction="sum").item(),
                                   (out.argmax(1) == y).sum().item(), len(b)])
    return hvd.allreduce(stats, op=hvd.Sum, name="val_stats")


blob = np.load(args.npz)
X, Y, subj = blob["x"].astype(np.float32), blob["y"].astype(np.int64), blob["subject"]
subjects = np.random.RandomState(0).permutation(np.unique(subj))
fold_of_subject = {s: i % args.k for i, s in enumerate(subjects)}
fold = np.array([fold_of_subject[s] for s in subj])
if hvd.rank() == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    print(f"{len(Y)} epochs, {len(subjects)} subjects, {args.k} folds, {hvd.size()} workers, bs/rank {per_rank_bs}")

fold_acc = []
for k in range(args.k):
    model = TinySleepNet(n_ch=X.shape[1]).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999))
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)
    start, best, stale = 0, float("inf"), 0
    last = os.path.join(args.ckpt_dir, f"fold{k}_last.pt")
    if args.resume and hvd.rank() == 0 and os.path.exists(last):
        state = torch.load(last, map_location=dev)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start, best, stale = state["epoch"] + 1, state["best"], state["stale"]
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    start, best, stale = hvd.broadcast_object((start, best, stale), root_rank=0)

    va_idx = my_slice(np.where(fold == k)[0], seed=k)
    for epoch in range(start, args.epochs):
        tr_idx = my_slice(np.where(fold != k)[0], seed=1000 * k + epoch)
        model.train()
        step_bs = per_rank_bs
        n_steps = len(tr_idx) // (step_bs * args.accum)
        for it in range(n_steps):
            opt.zero_grad()
            for a in range(args.accum):
                b = tr_idx[(it * args.accum + a) * step_bs:(it * args.accum + a + 1) * step_bs]
                x, y = torch.from_numpy(X[b]).to(dev), torch.from_numpy(Y[b]).to(dev)
                (F.cross_entropy(model(x), y) / args.accum).backward()
            opt.step()
        loss_sum, correct, n = counts(model, X, Y, va_idx).tolist()
        val_loss, val_acc = loss_sum / n, correct / n
        stale = 0 if val_loss < best else stale + 1
        if hvd.rank() == 0:
            print(f"fold {k} ep {epoch} val_loss {val_loss:.4f} acc {val_acc:.4f}")
            if val_loss < best:
                torch.save(model.state_dict(), os.path.join(args.ckpt_dir, f"fold{k}_best.pt"))
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                        "best": min(best, val_loss), "stale": stale}, last)
        best = min(best, val_loss)
        if stale >= args.patience:
            break
    fold_acc.append(val_acc if start < args.epochs else float("nan"))

if hvd.rank() == 0:
    print("per-fold acc (last epoch):", np.round(fold_acc, 4), "mean", np.nanmean(fold_acc))
