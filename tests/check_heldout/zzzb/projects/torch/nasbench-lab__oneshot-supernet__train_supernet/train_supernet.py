"""Train a single-path one-shot supernet with Horovod, then rank the candidate ops.

    horovodrun -np 8 python train_supernet.py --data ./data --epochs 120
"""
import argparse
import logging
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from spos import SuperNet, UniformPathSampler
from tools.data import build_loaders
from tools.hvd_utils import setup, is_master, global_accuracy

log = logging.getLogger("spos")


def get_args():
    p = argparse.ArgumentParser(description="SPOS supernet training")
    p.add_argument("--data", default="./data")
    p.add_argument("--dataset", default="cifar10", choices=["cifar10", "fake"])
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=64, help="per worker")
    p.add_argument("--lr", type=float, default=0.05, help="lr for one worker")
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=4e-5)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--ckpt-dir", default="./checkpoints")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


def train_epoch(model, loader, optimizer, sampler, epoch, criterion):
    model.train()
    for step, (x, y) in enumerate(loader):
        path = sampler.sample(epoch, step)
        optimizer.zero_grad()
        loss = criterion(model(x, path), y)
        loss.backward()
        optimizer.step()
        if step % 50 == 0 and is_master():
            log.info("epoch %d step %d loss %.4f path %s", epoch, step, loss.item(), path)


@torch.no_grad()
def evaluate(model, loader, path, tag):
    model.eval()
    correct = total = 0
    for x, y in loader:
        correct += (model(x, path).argmax(1) == y).sum().item()
        total += y.numel()
    return global_accuracy(correct, total, name=f"val_acc.{tag}")


def main():
    args = get_args()
    rank, world = setup(args.seed)
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")

    train_loader, val_loader, train_sampler = build_loaders(
        args.data, args.dataset, args.batch_size, args.workers, num_replicas=world, rank=rank)

    model = SuperNet()
    if torch.cuda.is_available():
        model.cuda()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * world,
                                momentum=args.momentum, weight_decay=args.wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch = 0
    ckpt_path = os.path.join(args.ckpt_dir, "supernet_last.pth")
    if args.resume and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    path_sampler = UniformPathSampler(model.num_choices, seed=args.seed)
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        train_epoch(model, train_loader, optimizer, path_sampler, epoch, criterion)
        scheduler.step()

        # quick proxy ranking: the same op in every layer
        scores = {}
        for i, name in enumerate(model.blocks[0].names):
            scores[name] = evaluate(model, val_loader, path_sampler.fixed(i), tag=f"{epoch}.{name}")
        if is_master():
            board = ", ".join(f"{k}={v:.3f}" for k, v in sorted(scores.items(), key=lambda kv: -kv[1]))
            log.info("epoch %d (%.0fs) leaderboard: %s", epoch, time.time() - t0, board)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch,
                        "scores": scores}, ckpt_path)


if __name__ == "__main__":
    main()
