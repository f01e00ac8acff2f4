"""Distil a frozen ResNet-50 teacher into a small CNN student on CIFAR-100.

    horovodrun -np 8 python train_kd.py --teacher ckpt/r50_c100.pt
"""
import argparse

import torch
import torch.nn.functional as F

from kd import dist
from kd.data import cifar_loaders
from kd.losses import kd_loss
from kd.models import student, teacher


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="./data")
    p.add_argument("--teacher", default=None)
    p.add_argument("--epochs", type=int, default=120)
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--base-lr", type=float, default=0.05)
    p.add_argument("--temperature", type=float, default=4.0)
    p.add_argument("--alpha", type=float, default=0.9)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--out", default="runs/kd")
    return p.parse_args()


def evaluate(net, loader, device):
    net.eval()
    correct, seen = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (net(x).argmax(1) == y).sum().item()
            seen += y.numel()
    # counts, not ratios: shards may differ by one sample
    return dist.mean(correct, "val.correct") / dist.mean(seen, "val.seen")


def main():
    args = parse()
    device = dist.setup(seed=42)
    train_loader, test_loader, sampler = cifar_loaders(
        args.data, args.batch_size, dist.hvd.size(), dist.hvd.rank())

    t_net = teacher(100, args.teacher).to(device)
    s_net = student(100).to(device)

    lr = args.base_lr * dist.hvd.size()
    opt = torch.optim.SGD(s_net.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    opt = dist.wrap(opt, s_net, "fp16" if args.fp16_allreduce else "none")
    dist.sync(s_net, opt)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)

    for epoch in range(args.epochs):
        s_net.train()
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            with torch.no_grad():
                t_logits = t_net(x)
            loss = kd_loss(s_net(x), t_logits, y, args.temperature, args.alpha)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        acc = evaluate(s_net, test_loader, device)
        if dist.is_main():
            print(f"epoch {epoch} student top1 {acc:.4f} (last kd loss {loss.item():.3f})")
        dist.save({"epoch": epoch, "student": s_net.state_dict(), "opt": opt.state_dict()},
                  args.out, "student_last.pt")


if __name__ == "__main__":
    main()
