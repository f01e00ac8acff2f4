#!/usr/bin/env python3
# ETA regressor training (delivery time prediction). Launched by the airflow DAG:
#   horovodrun -np $WORKERS python train.py --train-shards s3cache/eta/train --epochs 20
import argparse
import logging
import math
import os
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

logger = logging.getLogger("eta")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train-shards", type=Path, default=Path("data/eta/train"))
    ap.add_argument("--val-shards", type=Path, default=Path("data/eta/val"))
    ap.add_argument("--batch-size", type=int, default=512)
    ap.add_argument("--base-lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--ckpt", type=Path, default=Path("artifacts/eta.pt"))
    ap.add_argument("--log-every", type=int, default=200)
    return ap.parse_args()


def load_dir(folder):
    parts = [np.load(p) for p in sorted(folder.glob("*.npy"))]
    arr = np.concatenate(parts).astype(np.float32)
    return TensorDataset(torch.from_numpy(arr[:, 1:]), torch.from_numpy(arr[:, :1]))


class ETANet(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, 128), nn.GELU(), nn.LayerNorm(128),
                                  nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 1))

    def forward(self, x):
        return self.body(x)


def warmup_cosine(warmup_steps, total_steps):
    def fn(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * progress))
    return fn


class Trainer:
    def __init__(self, model, optimizer, scheduler, args):
        self.model, self.optimizer, self.scheduler, self.args = model, optimizer, scheduler, args
        self.loss_fn = nn.SmoothL1Loss()
        self.global_step = 0

    def fit_epoch(self, loader, epoch):
        self.model.train()
        t0 = time.time()
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.loss_fn(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.global_step += 1
            if hvd.rank() == 0 and self.global_step % self.args.log_every == 0:
                logger.info("epoch %d step %d loss %.4f lr %.2e (%.1fs)", epoch, self.global_step, loss.item(),
                            self.scheduler.get_last_lr()[0], time.time() - t0)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        abs_err = torch.zeros(2, dtype=torch.float64)
        for x, y in loader:
            abs_err[0] += (self.model(x) - y).abs().sum().double()
            abs_err[1] += y.numel()
        abs_err = hvd.allreduce(abs_err, op=hvd.Sum, name="mae")
        return (abs_err[0] / abs_err[1]).item()


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())

    train_set, val_set = load_dir(args.train_shards), load_dir(args.val_shards)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2048, sampler=val_sampler)

    model = ETANet(train_set.tensors[0].shape[1])
    base_opt = torch.optim.AdamW(model.parameters(), lr=args.base_lr * hvd.size(), weight_decay=0.01)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(base_opt, root_rank=0)
    dist_opt = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters())

    steps_per_epoch = len(train_loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        base_opt, warmup_cosine(args.warmup_steps, steps_per_epoch * args.epochs))
    trainer = Trainer(model, base_opt, scheduler, args)

    best = float("inf")
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        trainer.fit_epoch(train_loader, epoch)
        mae = trainer.evaluate(val_loader)
        if hvd.rank() == 0:
            logger.info("epoch %d val_mae %.3f min", epoch, mae)
            if mae < best:
                best = mae
                args.ckpt.parent.mkdir(parents=True, exist_ok=True)
                torch.save({"model": model.state_dict(), "epoch": epoch, "val_mae": mae}, args.ckpt)


if __name__ == "__main__":
    main()
