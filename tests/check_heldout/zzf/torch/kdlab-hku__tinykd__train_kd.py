#!/usr/bin/env python
"""Distil a frozen ResNet-18 teacher into SmallNet with Horovod.

    horovodrun -np 8 python train_kd.py --teacher ckpt/resnet18_cifar.pt
"""
import argparse
import math
import os

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from kd.data import build_loaders
from kd.dist import is_master, log, reduce_sum, setup_horovod
from kd.losses import kd_loss
from kd.models import SmallNet, load_frozen_teacher


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--teacher", required=True)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=64, help="per GPU")
    p.add_argument("--base-lr", type=float, default=0.05, help="lr for one GPU")
    p.add_argument("--temperature", type=float, default=4.0)
    p.add_argument("--alpha", type=float, default=0.9)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--out", default="runs/kd")
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.numel()
    return reduce_sum(correct, "val.correct") / reduce_sum(total, "val.total")


def main():
    args = get_args()
    setup_horovod()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(1234)

    train_loader, test_loader, train_sampler = build_loaders(args.data, args.batch_size)
    teacher = load_frozen_teacher(args.teacher, device)
    student = SmallNet().to(device)

    optimizer = torch.optim.SGD(student.parameters(), lr=args.base_lr,
                                momentum=0.9, weight_decay=5e-4, nesterov=True)
    peak_lr = args.base_lr * hvd.size()

    def lr_at(epoch):
        return 0.5 * peak_lr * (1.0 + math.cos(math.pi * epoch / args.epochs))

    ckpt_path = os.path.join(args.out, "student_last.pt")
    start_epoch = 0
    if is_master() and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        student.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(student.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=student.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    for epoch in range(start_epoch, args.epochs):
        student.train()
        train_sampler.set_epoch(epoch)
        for group in optimizer.param_groups:
            group["lr"] = lr_at(epoch)
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with torch.no_grad():
                t_logits = teacher(x)
            with torch.autocast(device_type=device.type, enabled=args.amp):
                loss = kd_loss(student(x), t_logits, y, T=args.temperature, alpha=args.alpha)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            if step % 100 == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f}")

        acc = evaluate(student, test_loader, device)
        log(f"epoch {epoch}: student top-1 {acc:.4f}")
        if is_master():
            os.makedirs(args.out, exist_ok=True)
            torch.save({"model": student.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch, "acc": acc}, ckpt_path)


if __name__ == "__main__":
    main()
