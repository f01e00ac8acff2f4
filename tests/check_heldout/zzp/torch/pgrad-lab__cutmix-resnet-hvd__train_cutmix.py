"""ResNet-50 / CutMix baseline for the pgrad lab's Stanford-Dogs experiments.

Every field of TrainConfig is also a command-line flag:
    horovodrun -np 4 python train_cutmix.py --epochs 60 --base_lr 0.0125
"""
import argparse
import csv
import dataclasses
import os
import socket
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms
import horovod.torch as hvd


@dataclass
class TrainConfig:
    train_dir: str = "data/dogs/train"
    val_dir: str = "data/dogs/val"
    arch: str = "resnet50"
    batch_size: int = 32            # per worker
    base_lr: float = 0.0125         # per worker; multiplied by the number of workers
    warmup_epochs: int = 5
    epochs: int = 60
    cutmix_beta: float = 1.0
    cutmix_prob: float = 0.5
    save_every: int = 5
    log_root: str = "logs"


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        parser.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return TrainConfig(**vars(parser.parse_args()))


def cutmix(x, y, beta):
    lam = np.random.beta(beta, beta)
    index = torch.randperm(x.size(0), device=x.device)
    h, w = x.shape[2:]
    rh, rw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
    cy, cx = np.random.randint(h), np.random.randint(w)
    t, b = max(cy - rh // 2, 0), min(cy + rh // 2, h)
    l, r = max(cx - rw // 2, 0), min(cx + rw // 2, w)
    x[:, :, t:b, l:r] = x[index, :, t:b, l:r]
    lam = 1 - (b - t) * (r - l) / (h * w)
    return x, y, y[index], lam


def adjust_lr(optimizer, cfg, epoch, batch_idx, n_batches):
    """Goyal et al. warmup to base_lr * size, then a cosine decay to zero."""
    peak = cfg.base_lr * hvd.size()
    e = epoch + batch_idx / n_batches
    if e < cfg.warmup_epochs:
        lr = cfg.base_lr + (peak - cfg.base_lr) * e / cfg.warmup_epochs
    else:
        lr = 0.5 * peak * (1 + np.cos(np.pi * (e - cfg.warmup_epochs) / (cfg.epochs - cfg.warmup_epochs)))
    for g in optimizer.param_groups:
        g["lr"] = lr
    return lr


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
        total += y.size(0)
    return correct / total


def train(cfg):
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    is_root = hvd.rank() == 0
    run_dir = os.path.join(cfg.log_root, f"{time.strftime('%Y-%m-%d_%H-%M')}_{socket.gethostname()}_np{hvd.size()}")

    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_set = datasets.ImageFolder(cfg.train_dir, transforms.Compose(
        [transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=1234)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=sampler, num_workers=6,
                              pin_memory=True, drop_last=True)

    model = getattr(models, cfg.arch)(num_classes=len(train_set.classes)).to(device)
    state = hvd.broadcast_object(model.state_dict() if is_root else None, root_rank=0, name="init_state")
    model.load_state_dict(state)

    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.base_lr, momentum=0.9, weight_decay=1e-4)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Average)

    if is_root:
        os.makedirs(run_dir, exist_ok=True)
        val_set = datasets.ImageFolder(cfg.val_dir, transforms.Compose(
            [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), norm]))
        val_loader = DataLoader(val_set, batch_size=64, num_workers=4)
        log_f = open(os.path.join(run_dir, "log.csv"), "w", newline="")
        log = csv.writer(log_f)
        log.writerow(["epoch", "lr", "loss", "val_acc"])
    best = 0.0

    for epoch in range(cfg.epochs):
        model.train()
        sampler.set_epoch(epoch)
        running, seen = 0.0, 0
        for i, (x, y) in enumerate(train_loader):
            lr = adjust_lr(optimizer, cfg, epoch, i, len(train_loader))
            x, y = x.to(device), y.to(device)
            if np.random.rand() < cfg.cutmix_prob:
                x, ya, yb, lam = cutmix(x, y, cfg.cutmix_beta)
                out = model(x)
                loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
            else:
                loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()
            seen += 1

        if is_root:
            acc = evaluate(model, val_loader, device)
            log.writerow([epoch, f"{lr:.5f}", f"{running / max(seen, 1):.4f}", f"{acc:.4f}"])
            log_f.flush()
            print(f"epoch {epoch}: loss {running / max(seen, 1):.4f} val_acc {acc:.4f}")
            if acc > best:
                best = acc
                torch.save(model.state_dict(), os.path.join(run_dir, "best.pth"))
            if (epoch + 1) % cfg.save_every == 0:
                torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                           os.path.join(run_dir, f"epoch{epoch + 1:03d}.pth"))


if __name__ == "__main__":
    train(parse_config())
