"""DD2424 project: CIFAR-10 with a small VGG.

Originally written for torch.distributed.launch (DDP); ported to Horovod so that it runs on the
course cluster with `horovodrun -np 4 -H node1:2,node2:2 python train.py`.
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from common import AverageMeter, save_on_master
from common.data import build_loaders
from common.models import SmallVGG


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128, help="per process")
    p.add_argument("--lr", type=float, default=0.05, help="lr for one process")
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="checkpoints")
    # kept from the DDP version (torch.distributed.launch passes it)
    p.add_argument("--local_rank", type=int, default=0)
    return p.parse_args()


def train_one_epoch(model, loader, optimizer, criterion, epoch, device):
    model.train()
    meter = AverageMeter()
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), x.size(0))
        if i % 50 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} it {i}/{len(loader)} loss {meter.avg:.4f}", flush=True)
    return meter.avg


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros(1, device=device)
    total = torch.zeros(1, device=device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum()
        total += y.numel()
    correct = hvd.allreduce(correct, op=hvd.Sum, name="correct")
    total = hvd.allreduce(total, op=hvd.Sum, name="total")
    return (correct / total).item()


def main():
    args = get_args()
    hvd.init()

    if torch.cuda.is_available():
        torch.cuda.set_device(args.local_rank)
        device = torch.device("cuda", args.local_rank)
    else:
        device = torch.device("cpu")
    torch.backends.cudnn.benchmark = True

    train_loader, test_loader, train_sampler = build_loaders(
        args.data, args.batch_size, hvd.size(), hvd.rank(), args.workers,
        download=(hvd.rank() == 0))

    model = SmallVGG().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size(), momentum=0.9,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    best = 0.0
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        loss = train_one_epoch(model, train_loader, optimizer, criterion, epoch, device)
        acc = evaluate(model, test_loader, device)
        scheduler.step()
        if hvd.rank() == 0:
            print(f"epoch {epoch}: train loss {loss:.4f} test acc {acc:.4f} ({time.time() - t0:.0f}s)")
        state = {"epoch": epoch + 1, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
        save_on_master(state, os.path.join(args.out, "last.pth"))
        if acc > best:
            best = acc
            save_on_master(state, os.path.join(args.out, "best.pth"))


if __name__ == "__main__":
    main()
