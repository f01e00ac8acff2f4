"""Compare SGD / Adam / LAMB / LARS at a fixed per-worker batch as workers are added.

    horovodrun -np 8 python train.py --opt lamb --base-lr 2e-3 --rule sqrt
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from lambbench import dist
from lambbench.data import make_loaders
from lambbench.optim import REGISTRY, build_optimizer
from lambbench.results import append_row


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--opt", choices=sorted(REGISTRY), default="lamb")
    p.add_argument("--base-lr", type=float, default=1e-3)
    p.add_argument("--rule", choices=["linear", "sqrt"], default="linear")
    p.add_argument("--batch-size", type=int, default=128, help="per worker")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--warmup-epochs", type=float, default=2.0)
    p.add_argument("--out", default="runs")
    p.add_argument("--resume", default="")
    return p.parse_args()


class MLP(nn.Module):
    def __init__(self, dim=64, hidden=512, classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    c = hvd.allreduce(torch.tensor(float(correct)), op=hvd.Sum, name="val_correct")
    n = hvd.allreduce(torch.tensor(float(total)), op=hvd.Sum, name="val_total")
    return (c / n).item()


def main():
    args = get_args()
    device = dist.setup(seed=42)
    train_loader, val_loader, sampler = make_loaders(args.batch_size, hvd.rank(), hvd.size())

    model = MLP().to(device)
    optimizer, peak_lr = build_optimizer(args.opt, model.parameters(), args.base_lr, hvd.size(), args.rule)
    start_epoch = 0
    ckpt_path = os.path.join(args.out, f"{args.opt}_{args.rule}_np{hvd.size()}.pt")
    if args.resume and dist.is_root():
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    steps_per_epoch = len(train_loader)
    warmup_steps = int(args.warmup_epochs * steps_per_epoch)
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0, running = time.time(), 0.0
        for i, (x, y) in enumerate(train_loader):
            step = epoch * steps_per_epoch + i
            lr = peak_lr * min(1.0, (step + 1) / max(1, warmup_steps))
            for g in optimizer.param_groups:
                g["lr"] = lr
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
        train_loss = dist.global_mean(running / steps_per_epoch, "train_loss")
        val_acc = evaluate(model, val_loader, device)
        if dist.is_root():
            print(f"[{args.opt}] epoch {epoch} loss {train_loss:.4f} acc {val_acc:.4f} "
                  f"lr {lr:.2e} ({time.time() - t0:.1f}s)")
            append_row(os.path.join(args.out, "results.csv"), dict(
                optimizer=args.opt, rule=args.rule, world=hvd.size(),
                global_batch=args.batch_size * hvd.size(), lr=peak_lr, epoch=epoch,
                train_loss=train_loss, val_acc=val_acc))
            os.makedirs(args.out, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch}, ckpt_path)


if __name__ == "__main__":
    main()
