"""ResNet-18 on CIFAR-10 with Horovod + AMP.

The config keeps one *global* batch size and the learning rate tuned for it,
so runs on 1, 4 or 8 GPUs follow the same optimisation trajectory.
"""
import argparse
import math
import os

import torch
import torchvision
import horovod.torch as hvd

from datasets import build_loaders
from engine import checkpoint
from engine.dist import init_horovod, per_replica_batch
from engine.trainer import train_one_epoch, evaluate


def get_parser():
    p = argparse.ArgumentParser(description="timm-lite CIFAR trainer")
    p.add_argument("--data", default="./data/cifar10")
    p.add_argument("--global-batch-size", type=int, default=512)
    p.add_argument("--lr", type=float, default=0.4, help="lr for the global batch")
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--output", default="output/r18")
    p.add_argument("--resume", default="", help="path to last.pth")
    return p


def cosine_with_warmup(optimizer, warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * t))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


def main(args):
    init_horovod()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)

    batch = per_replica_batch(args.global_batch_size)
    train_loader, test_loader, train_sampler = build_loaders(args.data, batch)

    model = torchvision.models.resnet18(num_classes=10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9,
                                weight_decay=args.wd, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and device.type == "cuda")

    meta = checkpoint.resume(args.resume, model, optimizer, scaler)
    start_epoch, best = meta["epoch"], meta["best_acc"]
    steps = len(train_loader)
    scheduler = cosine_with_warmup(optimizer, args.warmup * steps, args.epochs * steps)
    for _ in range(start_epoch * steps):
        scheduler.step()

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        loss, secs = train_one_epoch(model, train_loader, optimizer, scaler, scheduler, device)
        acc = evaluate(model, test_loader, device)
        best = max(best, acc)
        checkpoint.save(os.path.join(args.output, "last.pth"), model, optimizer, scaler,
                        epoch, best)
        if hvd.rank() == 0:
            print(f"[{epoch:03d}] loss {loss:.4f} acc {acc:.4f} best {best:.4f} "
                  f"lr {scheduler.get_last_lr()[0]:.4f} ({secs:.0f}s)", flush=True)


if __name__ == "__main__":
    main(get_parser().parse_args())
