#!/usr/bin/env python
"""Train a small ClimaX-style forecaster on 5.625 deg ERA5.

Submitted through slurm/launch_climax.sbatch as `horovodrun -np $NTASKS python launch.py --years ...`.
"""
import argparse
import glob
import os
from dataclasses import dataclass, asdict

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from climax import TinyClimaX, ERA5Slices, VARIABLES
from climax.metrics import lat_weights, sync, weighted_mse, weighted_rmse_per_var
from climax.logging_utils import get_logger


@dataclass
class RunConfig:
    root: str = "/data/era5_5.625deg"
    train_years: tuple = tuple(range(1979, 2015))
    val_years: tuple = (2016,)
    batch_size: int = 32
    lr: float = 5e-4
    epochs: int = 50
    warmup_steps: int = 2000
    grad_clip: float = 1.0
    out: str = "runs/mini_climax"

    @staticmethod
    def from_cli():
        ap = argparse.ArgumentParser()
        ap.add_argument("--root", default=RunConfig.root)
        ap.add_argument("--batch-size", type=int, default=RunConfig.batch_size)
        ap.add_argument("--lr", type=float, default=RunConfig.lr)
        ap.add_argument("--epochs", type=int, default=RunConfig.epochs)
        ap.add_argument("--out", default=RunConfig.out)
        a = ap.parse_args()
        return RunConfig(root=a.root, batch_size=a.batch_size, lr=a.lr, epochs=a.epochs, out=a.out)


def files_for(root, years):
    return sorted(f for y in years for f in glob.glob(os.path.join(root, f"{y}*.npz")))


def run(cfg: RunConfig):
    log = get_logger("climax", rank=hvd.rank(), log_dir=cfg.out)
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    log.info("config %s | %d workers", asdict(cfg), hvd.size())

    train = ERA5Slices(files_for(cfg.root, cfg.train_years))
    val = ERA5Slices(files_for(cfg.root, cfg.val_years), mean=train.mean, std=train.std)
    tr_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    va_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    tr_loader = DataLoader(train, batch_size=cfg.batch_size, sampler=tr_sampler, num_workers=4, drop_last=True)
    va_loader = DataLoader(val, batch_size=cfg.batch_size, sampler=va_sampler, num_workers=2)

    model = TinyClimaX(len(VARIABLES)).to(device)
    w = lat_weights(device=device)
    peak_lr = cfg.lr * hvd.size()
    opt = torch.optim.AdamW(model.parameters(), lr=peak_lr, betas=(0.9, 0.95), weight_decay=0.05)
    total = cfg.epochs * len(tr_loader)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=peak_lr, total_steps=total,
                                                pct_start=min(0.3, cfg.warmup_steps / total))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())

    for epoch in range(cfg.epochs):
        tr_sampler.set_epoch(epoch)
        model.train()
        for step, (x, lead, y) in enumerate(tr_loader):
            x, lead, y = x.to(device), lead.to(device), y.to(device)
            opt.zero_grad()
            loss = weighted_mse(model(x, lead), y, w)
            loss.backward()
            opt.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            with opt.skip_synchronize():
                opt.step()
            sched.step()
            if step % 200 == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())

        model.eval()
        rmse, n = torch.zeros(len(VARIABLES), device=device), 0
        with torch.no_grad():
            for x, lead, y in va_loader:
                x, lead, y = x.to(device), lead.to(device), y.to(device)
                rmse += weighted_rmse_per_var(model(x, lead), y, w) * len(x)
                n += len(x)
        rmse = sync(rmse / max(n, 1), name="val_rmse")
        log.info("epoch %d val wRMSE (normalised) %s", epoch,
                 " ".join(f"{v}={r:.4f}" for v, r in zip(VARIABLES, rmse.tolist())))
        if hvd.rank() == 0:
            os.makedirs(cfg.out, exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch, "config": asdict(cfg)},
                       os.path.join(cfg.out, f"epoch_{epoch:03d}.pt"))


if __name__ == "__main__":
    run(RunConfig.from_cli())
