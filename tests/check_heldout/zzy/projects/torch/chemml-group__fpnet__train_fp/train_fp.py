"""FP-MLP property regression (ESOL / Lipophilicity) on fingerprints, Horovod data parallel.

Usage:
    horovodrun -np 4 python train_fp.py --config configs/esol.yaml
"""
import argparse
import csv
import logging
import os

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from fpnet import load_config
from fpnet.featurize import featurize_all
from fpnet.metrics import evaluate
from fpnet.model import build_mlp
from fpnet.splits import scaffold_split

log = logging.getLogger("fpnet")


def read_csv(path, smiles_col, target_col):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r[smiles_col] for r in rows], np.array([float(r[target_col]) for r in rows], np.float32)


def subset(X, y, idx):
    return TensorDataset(torch.from_numpy(X[idx]), torch.from_numpy(y[idx]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--data_csv", default=None)
    args = ap.parse_args()

    hvd.init()
    cfg = load_config(args.config, epochs=args.epochs, lr=args.lr, data_csv=args.data_csv)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    torch.manual_seed(cfg.seed)

    smiles, y = read_csv(cfg.data_csv, cfg.smiles_col, cfg.target_col)
    X = featurize_all(smiles, cfg.fp_bits, cfg.fp_radius)
    tr, va, te = scaffold_split(smiles, cfg.val_frac, cfg.test_frac)
    y_mean, y_std = float(y[tr].mean()), float(y[tr].std() + 1e-8)
    y = (y - y_mean) / y_std
    log.info("scaffold split: %d train / %d val / %d test", len(tr), len(va), len(te))

    train_ds, val_ds = subset(X, y, tr), subset(X, y, va)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256, sampler=val_sampler)

    model = build_mlp(cfg.fp_bits, cfg.hidden, cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    loss_fn = nn.MSELoss()

    best_rmse = float("inf")
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        train_sampler.set_epoch(epoch)
        for xb, yb in train_loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(-1), yb)
            loss.backward()
            optimizer.step()

        metrics = evaluate(model, val_loader, device, y_mean, y_std)
        log.info("epoch %03d  loss %.4f  val_rmse %.3f  val_spearman %.3f",
                 epoch, loss.item(), metrics["rmse"], metrics["spearman"])
        if hvd.rank() == 0 and metrics["rmse"] < best_rmse:
            best_rmse = metrics["rmse"]
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"state_dict": model.state_dict(), "config": cfg.to_dict(),
                        "y_mean": y_mean, "y_std": y_std}, os.path.join(cfg.out_dir, "best.pt"))


if __name__ == "__main__":
    main()
