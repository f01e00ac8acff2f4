#!/usr/bin/env python
"""Train deepar-lite on one long series with Horovod.

    horovodrun -np 4 python train.py --data data/load.npy --epochs 30
"""
import argparse
import logging
import os
import time

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Subset

from deepar import QuantileLSTM, pinball_loss
from deepar.data import load_series, split_by_fraction, Scaler, WindowDataset, rank_indices
from deepar.losses import coverage
from deepar import distributed as dist

log = logging.getLogger("deepar")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=None)
    p.add_argument("--context", type=int, default=168)
    p.add_argument("--horizon", type=int, default=24)
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker learning rate")
    p.add_argument("--quantiles", type=float, nargs="+", default=[0.1, 0.5, 0.9])
    p.add_argument("--ckpt", default="checkpoints/deepar.pt")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args()


def evaluate(model, loader, quantiles, device):
    model.eval()
    loss_sum, cov, n = 0.0, 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            q = model(x)
            loss_sum += pinball_loss(q, y, quantiles, reduction="sum").item()
            cov += coverage(q, y).item()
            n += y.numel()
    loss_sum, cov, n = dist.global_sum(loss_sum, cov, n)
    return loss_sum / (n * len(quantiles)), cov / n


def main():
    args = parse_args()
    device = dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_root() else logging.WARNING,
                        format="%(asctime)s %(message)s")
    torch.manual_seed(args.seed)

    series = load_series(args.data)
    train_raw, val_raw = split_by_fraction(series)
    scaler = Scaler().fit(train_raw)
    train_ds = WindowDataset(scaler.transform(train_raw), args.context, args.horizon)
    val_ds = WindowDataset(scaler.transform(val_raw), args.context, args.horizon, stride=args.horizon)
    val_part = Subset(val_ds, rank_indices(len(val_ds), hvd.rank(), hvd.size()))
    val_loader = DataLoader(val_part, batch_size=256)

    model = QuantileLSTM(horizon=args.horizon, quantiles=args.quantiles).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    start_epoch = 0
    if args.resume and os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = dist.sync_state(model, optimizer, start_epoch)

    for epoch in range(start_epoch, args.epochs):
        part = Subset(train_ds, rank_indices(len(train_ds), hvd.rank(), hvd.size(), epoch, args.seed))
        loader = DataLoader(part, batch_size=args.batch_size, drop_last=True)
        model.train()
        t0 = time.time()
        for step, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = pinball_loss(model(x), y, args.quantiles)
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                log.info("epoch %d step %d loss %.4f", epoch, step, loss.item())
        val_loss, val_cov = evaluate(model, val_loader, args.quantiles, device)
        log.info("epoch %d val_pinball %.4f coverage80 %.3f (%.1fs)", epoch, val_loss, val_cov, time.time() - t0)
        dist.save_checkpoint(args.ckpt, model, optimizer, epoch, (scaler.mu, scaler.sd))


if __name__ == "__main__":
    main()
