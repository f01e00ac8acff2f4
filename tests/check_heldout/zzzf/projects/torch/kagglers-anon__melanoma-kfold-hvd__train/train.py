"""K-fold training for the melanoma baseline.

    horovodrun -np 4 python train.py --folds 0 1 2 3 4 --epochs 12
"""
import argparse
import dataclasses
import os

import numpy as np
import torch
import horovod.torch as hvd

from melanoma.config import Config
from melanoma.data import load_arrays, assign_folds, make_loaders
from melanoma.engine import train_one_epoch, validate
from melanoma.model import SmallNet


def parse_cfg():
    cfg = Config()
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        kw = {"nargs": "+", "type": int} if f.name == "folds" else {"type": type(f.default)}
        if f.type is bool or isinstance(f.default, bool):
            kw = {"action": "store_true"}
        p.add_argument("--" + f.name.replace("_", "-"), dest=f.name, default=getattr(cfg, f.name), **kw)
    return Config(**vars(p.parse_args()))


def auc(y, p):
    order = np.argsort(p)
    ranks = np.empty(len(p)); ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1)


def run_fold(fold, x, y, folds, cfg, device):
    train_loader, val_loader, train_sampler = make_loaders(x, y, folds, fold, cfg)
    model = SmallNet().to(device)
    base = torch.optim.AdamW(model.parameters(), lr=cfg.base_lr * hvd.size(),
                             weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(base, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and device.type == "cuda")

    best, bad_epochs = float("inf"), 0
    ckpt = os.path.join(cfg.out_dir, f"fold{fold}_best.pt")
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        train_one_epoch(model, train_loader, optimizer, scaler, device, cfg.amp)
        val_loss, _, _ = validate(model, val_loader, device)
        if hvd.rank() == 0:
            print(f"fold {fold} epoch {epoch} val_loss {val_loss:.4f}", flush=True)
        if val_loss < best:
            best, bad_epochs = val_loss, 0
            if hvd.rank() == 0:
                torch.save({"model": model.state_dict(), "epoch": epoch, "val_loss": val_loss}, ckpt)
        else:
            bad_epochs += 1
            if bad_epochs >= cfg.patience:
                break

    # reload the best weights (every rank reads rank 0's file) for OOF predictions
    hvd.barrier()
    model.load_state_dict(torch.load(ckpt, map_location=device)["model"])
    _, idx, prob = validate(model, val_loader, device)
    return hvd.allgather(idx), hvd.allgather(prob)


def main():
    cfg = parse_cfg()
    hvd.init()
    torch.manual_seed(cfg.fold_seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)

    x, y = load_arrays(cfg.data_path)
    folds = assign_folds(y, cfg.n_folds, cfg.fold_seed)
    oof = np.full(len(y), np.nan)
    for fold in cfg.folds:
        idx, prob = run_fold(fold, x, y, folds, cfg, device)
        oof[idx.numpy()] = prob.numpy()
    if hvd.rank() == 0:
        seen = ~np.isnan(oof)
        print(f"OOF AUC over {seen.sum()} samples: {auc(y[seen], oof[seen]):.4f}")
        np.save(os.path.join(cfg.out_dir, "oof.npy"), oof)


if __name__ == "__main__":
    main()
