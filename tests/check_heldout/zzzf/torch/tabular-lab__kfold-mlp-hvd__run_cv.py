"""
run_cv.py -- K-fold MLP regressor on the house-price tabular features, Horovod edition.

Usage:
    horovodrun -np 2 python run_cv.py --csv data/train_features.csv --folds 5
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

TARGET_COL = -1
SAVE_DIR = "models"


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/train_features.csv")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--bs", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--seed", type=int, default=2024)
    return ap.parse_args()


def make_mlp(n_in, hidden):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.SiLU(), nn.Dropout(0.1),
        nn.Linear(hidden, hidden // 2), nn.SiLU(),
        nn.Linear(hidden // 2, 1),
    )


def kfold_indices(n, k, seed):
    perm = np.random.RandomState(seed).permutation(n)
    return [perm[i::k] for i in range(k)]


def evaluate(model, loader):
    model.eval()
    preds, targets = [], []
    with torch.no_grad():
        for xb, yb in loader:
            preds.append(model(xb).squeeze(1))
            targets.append(yb)
    preds, targets = torch.cat(preds), torch.cat(targets)
    rmse = torch.sqrt(((preds - targets) ** 2).mean()).item()
    return rmse, preds.numpy()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    data = np.loadtxt(args.csv, delimiter=",", skiprows=1, dtype=np.float32)
    X, y = data[:, :TARGET_COL], data[:, TARGET_COL]
    X = (X - X.mean(0)) / (X.std(0) + 1e-6)
    X_t, y_t = torch.from_numpy(X), torch.from_numpy(y)
    parts = kfold_indices(len(y), args.folds, args.seed)
    fold_scores = []

    for k in range(args.folds):
        va_idx = parts[k]
        tr_idx = np.concatenate([parts[j] for j in range(args.folds) if j != k])
        tr_ds = TensorDataset(X_t[tr_idx], y_t[tr_idx])
        va_ds = TensorDataset(X_t[va_idx], y_t[va_idx])
        tr_sampler = DistributedSampler(tr_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=args.seed)
        va_sampler = DistributedSampler(va_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        tr_loader = DataLoader(tr_ds, batch_size=args.bs, sampler=tr_sampler, drop_last=True)
        va_loader = DataLoader(va_ds, batch_size=1024, sampler=va_sampler)

        model = make_mlp(X.shape[1], args.hidden)
        opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr * hvd.size(),
                                                    epochs=args.epochs, steps_per_epoch=len(tr_loader))
        hvd.broadcast_parameters(model.state_dict(), root=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)

        loss_fn = nn.MSELoss()
        best = float("inf")
        t0 = time.time()
        for epoch in range(args.epochs):
            tr_sampler.set_epoch(epoch)
            model.train()
            for xb, yb in tr_loader:
                opt.zero_grad()
                loss = loss_fn(model(xb).squeeze(1), yb)
                loss.backward()
                opt.step()
                sched.step()
            rmse, _ = evaluate(model, va_loader)
            if hvd.rank() == 0 and rmse < best:
                best = rmse
                os.makedirs(SAVE_DIR, exist_ok=True)
                torch.save(model.state_dict(), os.path.join(SAVE_DIR, f"mlp_fold{k}.pt"))
        if hvd.rank() == 0:
            print(f"fold {k}: best val RMSE {best:.4f} ({time.time() - t0:.0f}s)")
            fold_scores.append(best)

    if hvd.rank() == 0:
        print(f"CV RMSE: {np.mean(fold_scores):.4f} +/- {np.std(fold_scores):.4f}")


if __name__ == "__main__":
    main()
