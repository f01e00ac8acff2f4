"""Exercise 3: data-parallel ResNet on CIFAR-10 with Horovod.

Run on the course cluster with
    srun --ntasks-per-node=4 --gpus-per-node=4 python train.py --arch resnet56 --epochs 160
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

import dist_utils
from data import get_loaders
from models import ARCHS


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--arch", default="resnet56", choices=sorted(ARCHS))
    p.add_argument("--data", default="/project/course/data/cifar10")
    p.add_argument("--epochs", type=int, default=160)
    p.add_argument("--batch-size", type=int, default=128, help="per-worker batch size")
    p.add_argument("--lr", type=float, default=0.1, help="single-GPU learning rate")
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--resume", default="")
    p.add_argument("--seed", type=int, default=42)
    return p.parse_args()


def train(model, loader, optimizer, criterion, device):
    model.train()
    total, correct, loss_sum = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * y.size(0)
        correct += (out.argmax(1) == y).sum().item()
        total += y.size(0)
    return loss_sum / total, correct / total


@torch.no_grad()
def test(model, loader, criterion, device):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += criterion(out, y).item() * y.size(0)
        correct += (out.argmax(1) == y).sum().item()
        total += y.size(0)
    return loss_sum / total, correct / total


def main():
    args = parse_args()
    dist_utils.setup_print(dist_utils.is_master())
    print(f"running on {dist_utils.world_size()} workers", all_ranks=True)

    if torch.cuda.is_available():
        device = torch.device("cuda", dist_utils.local_rank())
    else:
        device = torch.device("cpu")

    train_loader, test_loader, train_sampler = get_loaders(
        args.data, args.batch_size, dist_utils.rank(), dist_utils.world_size())

    model = ARCHS[args.arch]().to(device)
    criterion = nn.CrossEntropyLoss()

    # Horovod: scale the learning rate by the number of GPUs.
    lr = args.lr * dist_utils.local_world_size()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=args.wd, nesterov=True)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[80, 120], gamma=0.1)

    # Horovod: make every worker start from the same weights.
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    start_epoch = 0
    if args.resume and dist_utils.is_master():
        ckpt = torch.load(args.resume, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    for _ in range(start_epoch):
        scheduler.step()

    best_acc = 0.0
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        tr_loss, tr_acc = train(model, train_loader, optimizer, criterion, device)
        te_loss, te_acc = test(model, test_loader, criterion, device)
        scheduler.step()

        tr_loss = dist_utils.average(tr_loss, "train_loss")
        tr_acc = dist_utils.average(tr_acc, "train_acc")
        te_loss = dist_utils.average(te_loss, "test_loss")
        te_acc = dist_utils.average(te_acc, "test_acc")
        print(f"epoch {epoch:3d} | train {tr_loss:.3f}/{100 * tr_acc:.2f}% | "
              f"test {te_loss:.3f}/{100 * te_acc:.2f}% | {time.time() - t0:.1f}s")

        if dist_utils.is_master():
            os.makedirs(args.ckpt_dir, exist_ok=True)
            state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "scheduler": scheduler.state_dict(), "epoch": epoch}
            torch.save(state, os.path.join(args.ckpt_dir, "last.pt"))
            if te_acc > best_acc:
                best_acc = te_acc
                torch.save(state, os.path.join(args.ckpt_dir, "best.pt"))


if __name__ == "__main__":
    main()
