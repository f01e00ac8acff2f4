#!/usr/bin/env python
"""CIFAR-10 ResNet-18 with Horovod, mixed precision and a goyal-style warmup.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python 01_cifar_resnet_amp.py --epochs 90
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
import torch.utils.data.distributed
from torchvision import datasets, models, transforms
import horovod.torch as hvd

parser = argparse.ArgumentParser(description="CIFAR-10 ResNet18 (Horovod)")
parser.add_argument("--data", default=os.path.expanduser("~/data/cifar10"))
parser.add_argument("--batch-size", type=int, default=128, help="per-GPU batch")
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--base-lr", type=float, default=0.05, help="lr for ONE worker")
parser.add_argument("--warmup-epochs", type=int, default=5)
parser.add_argument("--wd", type=float, default=5e-4)
parser.add_argument("--fp16-allreduce", action="store_true")
parser.add_argument("--no-amp", action="store_true")
parser.add_argument("--ckpt", default="ckpt_resnet18.pt")
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()

hvd.init()
torch.manual_seed(42)
torch.cuda.set_device(hvd.local_rank())
torch.cuda.manual_seed(42)
device = torch.device("cuda", hvd.local_rank())
torch.backends.cudnn.benchmark = True
use_amp = not args.no_amp
torch.set_num_threads(4)  # 4 ranks per node, don't oversubscribe the cores

mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
train_tf = transforms.Compose([
    transforms.RandomCrop(32, padding=4),
    transforms.RandomHorizontalFlip(),
    transforms.ToTensor(),
    transforms.Normalize(mean, std),
])
test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(mean, std)])

# one download per node, everybody else waits
if hvd.local_rank() == 0:
    datasets.CIFAR10(args.data, train=True, download=True)
    datasets.CIFAR10(args.data, train=False, download=True)
hvd.barrier()

train_set = datasets.CIFAR10(args.data, train=True, transform=train_tf)
test_set = datasets.CIFAR10(args.data, train=False, transform=test_tf)
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
test_sampler = torch.utils.data.distributed.DistributedSampler(
    test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
kw = dict(num_workers=args.workers, pin_memory=True)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size,
                                           sampler=train_sampler, drop_last=True, **kw)
test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, sampler=test_sampler, **kw)

model = models.resnet18(num_classes=10)
model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)  # CIFAR stem
model.maxpool = nn.Identity()
model.to(device)

optimizer = torch.optim.SGD(model.parameters(), lr=args.base_lr, momentum=0.9,
                            weight_decay=args.wd, nesterov=True)

steps_per_epoch = len(train_loader)
warmup_steps = args.warmup_epochs * steps_per_epoch
total_steps = args.epochs * steps_per_epoch


def lr_factor(step):
    """Ramp from base_lr to base_lr * size over the warmup, then cosine."""
    if step < warmup_steps:
        return 1.0 + (hvd.size() - 1.0) * step / warmup_steps
    progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
    return hvd.size() * 0.5 * (1.0 + math.cos(math.pi * progress))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lr_factor)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
criterion = nn.CrossEntropyLoss()


def allreduce_mean(value, name):
    return hvd.allreduce(torch.tensor(value, dtype=torch.float64), name=name).item()


def evaluate():
    model.eval()
    loss_sum, correct, total = 0.0, 0.0, 0.0
    with torch.no_grad():
        for x, y in test_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.cuda.amp.autocast(enabled=use_amp):
                out = model(x)
                loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            total += y.size(0)
    # sum over ranks first, then divide
    stats = hvd.allreduce(torch.tensor([loss_sum, correct, total], dtype=torch.float64),
                          op=hvd.Sum, name="eval_stats")
    return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()


for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    t0 = time.time()
    running, seen = 0.0, 0
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with torch.cuda.amp.autocast(enabled=use_amp):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        optimizer.synchronize()          # finish the allreduce before unscaling/clipping
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        running += loss.item() * y.size(0)
        seen += y.size(0)

    train_loss = allreduce_mean(running / seen, "train_loss")
    val_loss, val_acc = evaluate()
    if hvd.rank() == 0:
        print(f"epoch {epoch:3d} lr {scheduler.get_last_lr()[0]:.4f} train_loss {train_loss:.4f} "
              f"val_loss {val_loss:.4f} val_acc {100 * val_acc:.2f}% ({time.time() - t0:.0f}s)",
              flush=True)
        if (epoch + 1) % 10 == 0 or epoch + 1 == args.epochs:
            torch.save({"epoch": epoch,
                        "model": model.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict()}, args.ckpt)
