#!/usr/bin/env python
"""Train a small classifier on WebDataset-style tar shards with Horovod.

    horovodrun -np 8 python train.py --train 'data/train-*.tar' --val 'data/val-*.tar'
"""
import argparse
import logging
import math

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from shardloader import ShardStream, expand_urls
from shardloader import checkpoint, dist

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("train")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--train", default="data/train-*.tar")
    p.add_argument("--val", default="data/val-*.tar")
    p.add_argument("--samples-per-epoch", type=int, default=100_000)
    p.add_argument("--batch-size", type=int, default=128, help="per rank")
    p.add_argument("--base-lr", type=float, default=0.05, help="lr for one worker")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--in-dim", type=int, default=256)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--ckpt", default="checkpoints/last.pt")
    p.add_argument("--seed", type=int, default=1234)
    return p.parse_args()


class MLP(nn.Module):
    def __init__(self, in_dim, classes, hidden=512):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(),
                                 nn.Dropout(0.1), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


def cosine_lr(base, epoch, total, warmup=3):
    if epoch < warmup:
        return base * (epoch + 1) / warmup
    t = (epoch - warmup) / max(1, total - warmup)
    return 0.5 * base * (1 + math.cos(math.pi * t))


@torch.no_grad()
def evaluate(model, loader, env):
    model.eval()
    loss_sum, correct, seen = 0.0, 0, 0
    for x, y in loader:
        x, y = x.to(env.device), y.to(env.device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        seen += y.numel()
    loss_sum, correct, seen = dist.allreduce_sum([loss_sum, correct, seen], "val_stats")
    return loss_sum / max(seen, 1), correct / max(seen, 1)


def main():
    args = parse_args()
    env = dist.setup(args.seed)

    train_ds = ShardStream(expand_urls(args.train), rank=env.rank, world_size=env.size,
                           shuffle=True, seed=args.seed, repeat=True)
    val_ds = ShardStream(expand_urls(args.val), rank=env.rank, world_size=env.size,
                         shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, num_workers=args.workers,
                              pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256, num_workers=min(2, args.workers))
    steps_per_epoch = args.samples_per_epoch // (args.batch_size * env.size)

    model = MLP(args.in_dim, args.classes).to(env.device)
    peak_lr = args.base_lr * env.size
    optimizer = torch.optim.SGD(model.parameters(), lr=peak_lr, momentum=0.9,
                                weight_decay=5e-4, nesterov=True)
    start_epoch = checkpoint.restore_and_sync(args.ckpt, model, optimizer)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        for group in optimizer.param_groups:
            group["lr"] = cosine_lr(peak_lr, epoch, args.epochs)
        train_ds.set_epoch(epoch)
        model.train()
        it = iter(train_loader)
        for step in range(steps_per_epoch):
            x, y = next(it)
            x, y = x.to(env.device, non_blocking=True), y.to(env.device, non_blocking=True)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            if env.is_main and step % 100 == 0:
                log.info("epoch %d step %d/%d loss %.4f", epoch, step, steps_per_epoch, loss.item())
        del it

        val_loss, val_acc = evaluate(model, val_loader, env)
        if env.is_main:
            log.info("epoch %d val_loss %.4f val_acc %.4f", epoch, val_loss, val_acc)
        checkpoint.save(args.ckpt, model, optimizer, epoch)


if __name__ == "__main__":
    main()
