#!/usr/bin/env python
"""PGD adversarial training of a ResNet-18 on CIFAR-10, data-parallel with Horovod.

    horovodrun -np 4 python train.py --amp --out runs/pgd_r18
"""
import argparse
import os
import time

import torch
import horovod.torch as hvd
from torchvision.models import resnet18

from robustcv import dist
from robustcv.attacks import PGD
from robustcv.data import build_loaders
from robustcv.engine import evaluate, lr_at, train_epoch


def get_args():
    p = argparse.ArgumentParser(description="PGD-AT with Horovod")
    p.add_argument("--data", default="./data")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=128, help="batch per worker")
    p.add_argument("--lr", type=float, default=0.1, help="lr of a single worker")
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--eps", type=float, default=8 / 255)
    p.add_argument("--alpha", type=float, default=2 / 255)
    p.add_argument("--pgd-steps", type=int, default=10)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--out", default="runs/pgd_at")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(1234)

    train_loader, test_loader, train_sampler = build_loaders(args.data, args.batch_size)

    model = resnet18(num_classes=10).to(device)
    base_lr = args.lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)

    start_epoch = 0
    if args.resume and dist.is_main():
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    dist.sync_state(model, optimizer)

    train_attack = PGD(args.eps, args.alpha, args.pgd_steps)
    eval_attack = PGD(args.eps, args.alpha / 2, 20)
    os.makedirs(args.out, exist_ok=True)

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        for group in optimizer.param_groups:
            group["lr"] = lr_at(epoch, base_lr)
        t0 = time.time()
        loss, acc = train_epoch(model, train_loader, optimizer, scaler, train_attack, device)
        dist.log(f"epoch {epoch} loss {loss:.4f} adv-acc {acc:.4f} ({time.time() - t0:.0f}s)")

        if (epoch + 1) % args.eval_every == 0 or epoch + 1 == args.epochs:
            clean, robust = evaluate(model, test_loader, eval_attack, device)
            dist.log(f"  test clean {clean:.4f} PGD-20 {robust:.4f}")
            if dist.is_main():
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict(), "robust_acc": robust},
                           os.path.join(args.out, "last.pt"))


if __name__ == "__main__":
    main()
