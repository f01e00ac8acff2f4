"""Train an image classifier from the cls-zoo configs with Horovod.

    horovodrun -np 8 python train.py --config configs/imagenette_r18.yaml --opts epochs=40
"""
import math
import os

import torch
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from clszoo import load_config
from clszoo import dist
from clszoo.data import build_loaders, mixup
from clszoo.ema import ModelEma
from clszoo.experiment import CSVLogger, make_exp_dir, save_checkpoint


def cosine_lr(base_lr, epoch, total):
    return 0.5 * base_lr * (1 + math.cos(math.pi * epoch / total))


def train_epoch(model, ema, loader, optimizer, cfg, device):
    model.train()
    total, n = 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        x, ya, yb, lam = mixup(x, y, cfg.mixup_alpha)
        out = model(x)
        loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        ema.update(model)
        total += loss.item() * x.size(0)
        n += x.size(0)
    return total / max(n, 1)


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, count, loss_sum = 0, 0, 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss_sum += F.cross_entropy(out, y, reduction="sum").item()
        correct += (out.argmax(1) == y).sum().item()
        count += y.numel()
    correct, count, loss_sum = dist.all_sum(correct, count, loss_sum)
    return correct / count, loss_sum / count


def main():
    cfg = load_config()
    exp_dir = make_exp_dir(cfg)
    dist.setup()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_loader, val_loader, train_sampler = build_loaders(cfg)
    model = getattr(torchvision.models, cfg.arch)(num_classes=cfg.num_classes).to(device)
    ema = ModelEma(model, cfg.ema_decay)

    base_lr = cfg.lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=cfg.momentum,
                                weight_decay=cfg.weight_decay, nesterov=True)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    ema = ModelEma(model, cfg.ema_decay)

    logger = CSVLogger(os.path.join(exp_dir, "metrics.csv"),
                       ["epoch", "lr", "train_loss", "val_acc", "ema_acc"]) if dist.is_master() else None
    best_acc = 0.0
    for epoch in range(cfg.epochs):
        train_sampler.set_epoch(epoch)
        lr = cosine_lr(base_lr, epoch, cfg.epochs)
        for g in optimizer.param_groups:
            g["lr"] = lr
        train_loss = train_epoch(model, ema, train_loader, optimizer, cfg, device)
        val_acc, _ = evaluate(model, val_loader, device)
        ema_acc, _ = evaluate(ema.module, val_loader, device)

        is_best = ema_acc > best_acc
        best_acc = max(best_acc, ema_acc)
        save_checkpoint({"epoch": epoch, "model": model.state_dict(), "ema": ema.module.state_dict(),
                         "optimizer": optimizer.state_dict(), "best_acc": best_acc}, exp_dir, is_best)
        if logger is not None:
            logger.log(epoch=epoch, lr=lr, train_loss=train_loss, val_acc=val_acc, ema_acc=ema_acc)
            print(f"[{epoch:03d}] loss {train_loss:.4f} acc {val_acc:.4f} ema {ema_acc:.4f} best {best_acc:.4f}")


if __name__ == "__main__":
    main()
