#!/usr/bin/env python3
"""TCN next-step forecaster for unsupervised anomaly detection on pump sensor logs.

Train on a period known to be normal; the anomaly threshold is the 99.5th percentile of the
validation forecast error. Jobs run on preemptible nodes, so by default the run resumes from
`<out>/last.pt` when it exists.
"""
import argparse
import os

import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from tsad.distributed import (broadcast_state, gather_errors, init_hvd, mean_over_workers,
                              wrap_optimizer)
from tsad.logger import CSVLogger
from tsad.optim import build_optimizer, cosine_with_warmup
from tsad.tcn import TCNForecaster
from tsad.windows import SlidingWindows, Standardizer, load_sensor_csv

DEFAULTS = dict(data="data/pump_normal.csv", window=256, batch_size=128, lr=2e-3, weight_decay=1e-4,
                epochs=40, warmup_steps=500, hidden=64, levels=7, val_frac=0.15, out="runs/tcn")


def parse():
    ap = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        ap.add_argument(f"--{k}", type=type(v), default=v)
    ap.add_argument("--no-resume", action="store_true")
    return vars(ap.parse_args())


def main(cfg):
    rank, world = init_hvd()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(7)

    series = load_sensor_csv(cfg["data"])
    cut = int(len(series) * (1 - cfg["val_frac"]))
    norm = Standardizer().fit(series[:cut])
    train_ds = SlidingWindows(norm(series[:cut]), cfg["window"])
    val_ds = SlidingWindows(norm(series[cut - cfg["window"]:]), cfg["window"], stride=4)
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank)
    val_sampler = DistributedSampler(val_ds, num_replicas=world, rank=rank, shuffle=False)
    train_dl = DataLoader(train_ds, cfg["batch_size"], sampler=train_sampler, num_workers=2, drop_last=True)
    val_dl = DataLoader(val_ds, cfg["batch_size"], sampler=val_sampler)

    model = TCNForecaster(series.shape[1], cfg["hidden"], cfg["levels"]).to(device)
    optimizer = build_optimizer(model, cfg)
    scheduler = cosine_with_warmup(optimizer, cfg["warmup_steps"], cfg["epochs"] * len(train_dl))
    broadcast_state(model, optimizer)

    start, best = 0, float("inf")
    last = os.path.join(cfg["out"], "last.pt")
    if rank == 0 and not cfg["no_resume"] and os.path.exists(last):
        ckpt = torch.load(last, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start, best = ckpt["epoch"] + 1, ckpt["best"]
    optimizer = wrap_optimizer(optimizer, model)
    logger = CSVLogger(os.path.join(cfg["out"], "metrics.csv"), enabled=rank == 0)

    for epoch in range(start, cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        model.train()
        tot, cnt = 0.0, 0
        for x, y in train_dl:
            x, y = x.to(device), y.to(device)
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            tot, cnt = tot + loss.item() * len(x), cnt + len(x)
        train_mse = mean_over_workers(tot, cnt, "train_mse")

        model.eval()
        errs = []
        with torch.no_grad():
            for x, y in val_dl:
                errs.append(((model(x.to(device)) - y.to(device)) ** 2).mean(1).cpu())
        errs = gather_errors(torch.cat(errs))
        val_mse = errs.mean().item()
        threshold = float(np.quantile(errs.numpy(), 0.995))
        logger.log(epoch=epoch, train_mse=round(train_mse, 5), val_mse=round(val_mse, 5),
                   threshold=round(threshold, 5), lr=scheduler.get_last_lr()[0])

        if rank == 0:
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": scheduler.state_dict(), "epoch": epoch, "best": min(best, val_mse),
                     "threshold": threshold, "norm": norm.state()}
            torch.save(state, last)
            if val_mse < best:
                torch.save(state, os.path.join(cfg["out"], "best.pt"))
        best = min(best, val_mse)


if __name__ == "__main__":
    main(parse())
