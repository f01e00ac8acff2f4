#!/usr/bin/env python
"""ResNet-18 on CIFAR-10 with Horovod + AMP.

Run: horovodrun -np 8 -H node1:4,node2:4 python cifar_resnet_amp.py --epochs 30
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data.distributed
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd


def get_args():
    p = argparse.ArgumentParser(description="CIFAR10 ResNet18 horovod")
    p.add_argument("--data-dir", default=os.path.expanduser("~/scratch/cifar10"))
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--lr", type=float, default=0.05, help="single-worker max lr")
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--amp", action="store_true", default=True)
    p.add_argument("--ckpt", default="ckpt/resnet18_cifar.pt")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--num-workers", type=int, default=4)
    return p.parse_args()


def build_loaders(args):
    mean, std = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(mean, std)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(mean, std)])
    # only local rank 0 downloads, the others wait
    if hvd.local_rank() != 0:
        hvd.barrier()
    train_set = torchvision.datasets.CIFAR10(args.data_dir, train=True, download=True, transform=train_tf)
    test_set = torchvision.datasets.CIFAR10(args.data_dir, train=False, download=True, transform=test_tf)
    if hvd.local_rank() == 0:
        hvd.barrier()

    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = torch.utils.data.distributed.DistributedSampler(
        test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=args.num_workers, pin_memory=True)
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                                               drop_last=True, **kw)
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=256, sampler=test_sampler, **kw)
    return train_loader, train_sampler, test_loader, test_sampler


def global_mean(value, name):
    t = torch.tensor(value, dtype=torch.float64)
    return hvd.allreduce(t, name=name).item()


def evaluate(model, loader, sampler, device):
    model.eval()
    loss_sum, correct = 0.0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
    n = len(sampler)
    return global_mean(loss_sum / n, "val_loss"), global_mean(correct / n, "val_acc")


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(1234)
    torch.cuda.set_device(hvd.local_rank())
    torch.cuda.manual_seed(1234)
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True

    train_loader, train_sampler, test_loader, test_sampler = build_loaders(args)

    model = torchvision.models.resnet18(num_classes=10)
    model.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = nn.Identity()
    model.to(device)

    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.wd, nesterov=True)
    start_epoch = 0
    if args.resume and hvd.rank() == 0 and os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optim"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    steps_per_epoch = len(train_loader)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr * hvd.size(),
                                                    epochs=args.epochs, steps_per_epoch=steps_per_epoch,
                                                    last_epoch=start_epoch * steps_per_epoch - 1 if start_epoch else -1)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        running, seen = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.cuda.amp.autocast(enabled=args.amp):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            running += loss.item() * x.size(0)
            seen += x.size(0)

        train_loss = global_mean(running / seen, "train_loss")
        val_loss, val_acc = evaluate(model, test_loader, test_sampler, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} | train {train_loss:.4f} | val {val_loss:.4f} acc {val_acc:.4f} "
                  f"| lr {scheduler.get_last_lr()[0]:.4f} | {time.time() - t0:.1f}s", flush=True)
            os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch}, args.ckpt)


if __name__ == "__main__":
    main()
