"""Playground S3E14 (wild blueberry yield) - MLP, 5-fold CV, multi-GPU with Horovod.

    horovodrun -np 4 python train.py --data-dir input/playground-series-s3e14
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from tabkit import binned_stratified_folds, TabMLP
from tabkit.data import read_table, standardize, TabDataset
from tabkit.engine import train_one_epoch, gather_predictions
from tabkit.submission import write_csv


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="input/playground-series-s3e14")
    p.add_argument("--out-dir", default="output/mlp_v3")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=256, help="per GPU")
    p.add_argument("--lr", type=float, default=1e-3, help="single-GPU lr")
    p.add_argument("--wd", type=float, default=1e-5)
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def log(*msg):
    if hvd.rank() == 0:
        print(time.strftime("[%H:%M:%S]"), *msg, flush=True)


def run_fold(fold, folds, X, y, X_test, args, device):
    tr_idx = np.where(folds != fold)[0]
    va_idx = np.where(folds == fold)[0]
    Xtr, Xva, Xte = standardize(X[tr_idx], X[va_idx], X_test)
    Xall = np.zeros_like(X)
    Xall[tr_idx], Xall[va_idx] = Xtr, Xva

    train_ds = TabDataset(Xtr, y[tr_idx])
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                 shuffle=True, seed=args.seed)
    loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)

    torch.manual_seed(args.seed + fold)
    model = TabMLP(X.shape[1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr * hvd.size(), weight_decay=args.wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.L1Loss()

    best, best_pred = np.inf, None
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        tr_loss = train_one_epoch(model, loader, optimizer, loss_fn, device)
        sched.step()
        va_pred = gather_predictions(Xall, va_idx, model, device)
        mae = float(np.abs(va_pred - y[va_idx]).mean())
        if mae < best:
            best, best_pred = mae, va_pred
            if hvd.rank() == 0:
                torch.save(model.state_dict(), os.path.join(args.out_dir, f"mlp_fold{fold}.pt"))
        log(f"fold {fold} ep {epoch:02d} train_mae(rank0) {tr_loss:.3f} val_mae {mae:.3f}")

    model.load_state_dict(torch.load(os.path.join(args.out_dir, f"mlp_fold{fold}.pt"),
                                     map_location=device)) if hvd.rank() == 0 else None
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    test_pred = gather_predictions(Xte, np.arange(len(Xte)), model, device)
    return va_idx, best_pred, best, test_pred


def main():
    args = get_args()
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if hvd.rank() == 0:
        os.makedirs(args.out_dir, exist_ok=True)
    hvd.barrier()

    _, X, y, cols = read_table(os.path.join(args.data_dir, "train.csv"))
    test_ids, X_test, _, _ = read_table(os.path.join(args.data_dir, "test.csv"))
    folds = binned_stratified_folds(y, n_splits=args.folds, seed=args.seed)
    log(f"{len(X)} rows, {len(cols)} features, {hvd.size()} workers")

    oof = np.zeros(len(X), dtype=np.float32)
    test_preds, scores = [], []
    for fold in range(args.folds):
        va_idx, va_pred, score, te_pred = run_fold(fold, folds, X, y, X_test, args, device)
        oof[va_idx] = va_pred
        scores.append(score)
        test_preds.append(te_pred)

    cv = float(np.abs(oof - y).mean())
    log(f"fold MAEs {np.round(scores, 3).tolist()}  CV MAE {cv:.4f}")
    if hvd.rank() == 0:
        write_csv(os.path.join(args.out_dir, "oof.csv"), np.arange(len(oof)), oof)
        write_csv(os.path.join(args.out_dir, "submission.csv"), test_ids, np.mean(test_preds, 0))


if __name__ == "__main__":
    main()
