#!/usr/bin/env python
# Hands-on 3: data-parallel training with Horovod (solution)
#   srun --ntasks-per-node=4 --gres=gpu:4 python train.py
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

import config
from data import get_datasets, get_loaders
from model import TinyResNet

hvd.init()
IS_ROOT = hvd.rank() == 0

use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

# the dataset is on the shared file system; download only if someone deleted it
train_set, val_set = get_datasets(download=False)
local_batch = config.GLOBAL_BATCH // hvd.size()
train_loader, val_loader, train_sampler = get_loaders(train_set, val_set, local_batch,
                                                      hvd.size(), hvd.rank())

model = TinyResNet().to(device)
# global batch does not depend on the number of workers -> no lr scaling needed
optimizer = torch.optim.SGD(model.parameters(), lr=config.LR, momentum=config.MOMENTUM,
                            weight_decay=config.WEIGHT_DECAY)

# resume: only root reads the file, everybody else gets weights and epoch by broadcast
ckpt_path = os.path.join(config.CKPT_DIR, "checkpoint.pt")
meta = {"epoch": 0, "best_acc": 0.0}
if IS_ROOT and os.path.exists(ckpt_path):
    ckpt = torch.load(ckpt_path, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    meta = {"epoch": ckpt["epoch"], "best_acc": ckpt["best_acc"]}
meta = hvd.broadcast_object(meta, root_rank=0, name="resume_meta")
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def adjust_lr(epoch):
    # step decay at epochs 8 and 12 (computed from the epoch, so it also holds after a resume)
    lr = config.LR * (0.1 ** sum(epoch >= m for m in (8, 12)))
    for group in optimizer.param_groups:
        group["lr"] = lr


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if IS_ROOT and step % 20 == 0:
            print(f"[epoch {epoch} step {step}] loss {loss.item():.4f}")


def validate():
    model.eval()
    stats = torch.zeros(3)  # loss sum, correct, count
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            stats[0] += F.cross_entropy(out, y, reduction="sum").item()
            stats[1] += (out.argmax(1) == y).sum().item()
            stats[2] += y.size(0)
    stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
    return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()


best_acc = meta["best_acc"]
for epoch in range(meta["epoch"], config.EPOCHS):
    adjust_lr(epoch)
    train(epoch)
    val_loss, val_acc = validate()
    if IS_ROOT:
        print(f"epoch {epoch}: val_loss={val_loss:.4f} val_acc={val_acc:.4f}")
        best_acc = max(best_acc, val_acc)
        os.makedirs(config.CKPT_DIR, exist_ok=True)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch + 1, "best_acc": best_acc}, ckpt_path)
