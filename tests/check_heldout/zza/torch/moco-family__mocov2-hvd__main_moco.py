#!/usr/bin/env python
"""MoCo v2 unsupervised pre-training on an ImageFolder dataset (Horovod port of the
official DDP code).  Monitors a kNN classifier on the val split every few epochs."""
import argparse
import math
import os
import shutil
import time

import torch
import torch.nn as nn
import torchvision.models as models
import horovod.torch as hvd

import moco.builder
import moco.loader
from tools.dist import init_distributed, is_master
from tools.knn import knn_monitor

model_names = sorted(n for n in models.__dict__ if n.islower() and callable(models.__dict__[n]))

parser = argparse.ArgumentParser(description="MoCo v2 pre-training (horovod)")
parser.add_argument("data", metavar="DIR")
parser.add_argument("-a", "--arch", default="resnet50", choices=model_names)
parser.add_argument("-j", "--workers", default=8, type=int)
parser.add_argument("--epochs", default=200, type=int)
parser.add_argument("--start-epoch", default=0, type=int)
parser.add_argument("-b", "--batch-size", default=32, type=int, help="per-GPU batch size")
parser.add_argument("--lr", default=0.03, type=float, help="lr for a total batch of 256")
parser.add_argument("--momentum", default=0.9, type=float)
parser.add_argument("--wd", default=1e-4, type=float)
parser.add_argument("--moco-dim", default=128, type=int)
parser.add_argument("--moco-k", default=65536, type=int)
parser.add_argument("--moco-m", default=0.999, type=float)
parser.add_argument("--moco-t", default=0.2, type=float)
parser.add_argument("--knn-every", default=10, type=int)
parser.add_argument("--resume", default="", type=str)
parser.add_argument("--save-dir", default="checkpoints")


def adjust_learning_rate(optimizer, epoch, args, base_lr):
    lr = base_lr * 0.5 * (1.0 + math.cos(math.pi * epoch / args.epochs))
    for g in optimizer.param_groups:
        g["lr"] = lr


def save_checkpoint(state, is_best, save_dir):
    os.makedirs(save_dir, exist_ok=True)
    path = os.path.join(save_dir, "checkpoint.pth.tar")
    torch.save(state, path)
    if is_best:
        shutil.copyfile(path, os.path.join(save_dir, "model_best.pth.tar"))


def train(loader, model, criterion, optimizer, epoch, device):
    model.train()
    end, loss_sum = time.time(), 0.0
    for i, (images, _) in enumerate(loader):
        im_q, im_k = images[0].to(device, non_blocking=True), images[1].to(device, non_blocking=True)
        output, target = model(im_q, im_k)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss_sum += loss.item()
        if i % 100 == 0 and is_master():
            print(f"Epoch [{epoch}][{i}/{len(loader)}]  loss {loss.item():.4f}  {time.time() - end:.2f}s")
        end = time.time()
    return loss_sum / len(loader)


def main():
    args = parser.parse_args()
    rank, world = init_distributed()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    model = moco.builder.MoCo(models.__dict__[args.arch], args.moco_dim, args.moco_k,
                              args.moco_m, args.moco_t, mlp=True).to(device)
    base_lr = args.lr * args.batch_size * world / 256
    optimizer = torch.optim.SGD(model.parameters(), base_lr, momentum=args.momentum, weight_decay=args.wd)

    best_acc = 0.0
    if args.resume and os.path.isfile(args.resume):
        ckpt = torch.load(args.resume, map_location="cpu")
        args.start_epoch = ckpt["epoch"]
        model.load_state_dict(ckpt["state_dict"])
        optimizer.load_state_dict(ckpt["optimizer"])
        best_acc = ckpt.get("best_acc", 0.0)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    criterion = nn.CrossEntropyLoss().to(device)

    train_loader, train_sampler, memory_loader, test_loader = moco.loader.build_loaders(
        args.data, args.batch_size, args.workers)

    for epoch in range(args.start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        adjust_learning_rate(optimizer, epoch, args, base_lr)
        loss = train(train_loader, model, criterion, optimizer, epoch, device)
        loss = hvd.allreduce(torch.tensor(loss), name="train_loss").item()

        acc = None
        if (epoch + 1) % args.knn_every == 0:
            acc = knn_monitor(model.backbone(), memory_loader, test_loader, device)
        if rank == 0:
            is_best = acc is not None and acc > best_acc
            best_acc = max(best_acc, acc or 0.0)
            print(f"epoch {epoch}: loss {loss:.4f}" + (f"  kNN top-1 {acc:.2f}" if acc is not None else ""))
            save_checkpoint({"epoch": epoch + 1, "arch": args.arch, "state_dict": model.state_dict(),
                             "optimizer": optimizer.state_dict(), "best_acc": best_acc},
                            is_best, args.save_dir)


if __name__ == "__main__":
    main()
