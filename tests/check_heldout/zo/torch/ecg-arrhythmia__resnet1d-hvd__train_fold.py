#!/usr/bin/env python
# 12-lead ECG diagnostic superclass classifier (PTB-XL style), 1D ResNet, k-fold CV on Horovod.
#
#   horovodrun -np 4 python train_fold.py --npz data/ptbxl_500hz.npz --folds 0,1,2,3,4
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

CLASSES = ["NORM", "MI", "STTC", "CD", "HYP"]


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--npz", default="data/ptbxl_500hz.npz")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--folds", default="0")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--base-lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ckpt-dir", default="ckpt_ecg")
    return ap.parse_args()


class ResBlock1d(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv1d(cin, cout, 7, stride, 3, bias=False)
        self.b1 = nn.BatchNorm1d(cout)
        self.c2 = nn.Conv1d(cout, cout, 7, 1, 3, bias=False)
        self.b2 = nn.BatchNorm1d(cout)
        self.skip = nn.Sequential() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv1d(cin, cout, 1, stride, bias=False), nn.BatchNorm1d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.skip(x))


class ResNet1d(nn.Module):
    def __init__(self, leads=12, n_classes=5, widths=(64, 128, 196, 256)):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(leads, widths[0], 15, 2, 7, bias=False), nn.BatchNorm1d(widths[0]), nn.ReLU())
        layers, cin = [], widths[0]
        for w in widths:
            layers += [ResBlock1d(cin, w, 2), ResBlock1d(w, w, 1)]
            cin = w
        self.body = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, n_classes)

    def forward(self, x):
        return self.fc(self.body(self.stem(x)).mean(-1))


def folds_of(n, k, seed):
    perm = np.random.RandomState(seed).permutation(n)
    return np.array_split(perm, k)


def macro_f1(pred, true, n):
    f1 = []
    for c in range(n):
        tp = np.sum((pred == c) & (true == c))
        fp = np.sum((pred == c) & (true != c))
        fn = np.sum((pred != c) & (true == c))
        f1.append(2 * tp / max(2 * tp + fp + fn, 1))
    return float(np.mean(f1))


@torch.no_grad()
def evaluate_full(model, X, y, device, bs=256):
    model.eval()
    preds = []
    for s in range(0, len(X), bs):
        preds.append(model(torch.from_numpy(X[s:s + bs]).to(device)).argmax(1).cpu().numpy())
    pred = np.concatenate(preds)
    return float((pred == y).mean()), macro_f1(pred, y, len(CLASSES))


def run_fold(fold, X, y, args, device):
    folds = folds_of(len(y), args.k, args.seed)
    val_idx = folds[fold]
    train_idx = np.concatenate([f for i, f in enumerate(folds) if i != fold])
    per_worker = len(train_idx) // hvd.size()
    steps = per_worker // args.batch_size

    counts = np.bincount(y[train_idx], minlength=len(CLASSES))
    weight = torch.tensor(len(train_idx) / (len(CLASSES) * np.maximum(counts, 1)), dtype=torch.float32).to(device)

    torch.manual_seed(args.seed + fold)
    model = ResNet1d().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(), momentum=0.9, weight_decay=5e-4)
    warm = args.warmup_epochs * steps
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + np.cos(np.pi * (s - warm) / max(1, args.epochs * steps - warm))))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), backward_passes_per_step=1)

    best_f1 = -1.0
    for epoch in range(args.epochs):
        model.train()
        # same permutation on every worker, then a disjoint slice per worker
        order = np.random.RandomState(args.seed * 1000 + epoch).permutation(train_idx)
        mine = order[hvd.rank()::hvd.size()][:per_worker]
        t0 = time.time()
        for s in range(steps):
            b = mine[s * args.batch_size:(s + 1) * args.batch_size]
            xb, yb = torch.from_numpy(X[b]).to(device), torch.from_numpy(y[b]).to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb, weight=weight)
            loss.backward()
            opt.step()
            sched.step()
        if hvd.rank() == 0:
            # every validation record, evaluated once, on the root worker only
            acc, f1 = evaluate_full(model, X[val_idx], y[val_idx], device)
            print(f"[fold {fold}] epoch {epoch:02d} loss {loss.item():.4f} val_acc {acc:.4f} "
                  f"macro_f1 {f1:.4f} ({time.time() - t0:.0f}s)", flush=True)
            if f1 > best_f1:
                best_f1 = f1
                torch.save({"fold": fold, "epoch": epoch, "state_dict": model.state_dict(), "macro_f1": f1},
                           os.path.join(args.ckpt_dir, f"resnet1d_fold{fold}.pt"))
    return best_f1


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
    data = np.load(args.npz)
    X, y = data["X"].astype(np.float32), data["y"].astype(np.int64)
    X = (X - X.mean(axis=(0, 2), keepdims=True)) / (X.std(axis=(0, 2), keepdims=True) + 1e-6)
    if hvd.rank() == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
    results = {}
    for fold in [int(f) for f in args.folds.split(",")]:
        results[fold] = run_fold(fold, X, y, args, device)
    if hvd.rank() == 0:
        print("macro F1 per fold:", results, "mean", np.mean(list(results.values())))


if __name__ == "__main__":
    main()
