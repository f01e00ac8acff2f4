"""ECG transformer (PTB-XL super-classes).

    horovodrun -np 4 python train.py                     # default launcher
    torchrun --nproc_per_node 4 train.py --launcher pytorch
    srun python train.py --launcher slurm
"""
import argparse
import dataclasses
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from ecgx import ckpt, dist
from ecgx.data import make_loaders
from ecgx.optim import build_optimizer, build_scheduler


@dataclasses.dataclass
class Config:
    launcher: str = "horovod"
    data: str = None
    epochs: int = 20
    warmup_epochs: int = 2
    batch_size: int = 32
    accum_steps: int = 2
    lr: float = 3e-4
    scale_lr: bool = True
    weight_decay: float = 0.05
    workers: int = 2
    seed: int = 17
    world_size: int = 1
    out: str = "work_dirs/ecg_transformer/latest.pth"


class ECGTransformer(nn.Module):
    def __init__(self, leads=12, dim=128, depth=4, n_classes=5, patch=25):
        super().__init__()
        self.patch = nn.Conv1d(leads, dim, patch, stride=patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        layer = nn.TransformerEncoderLayer(dim, 4, dim * 4, dropout=0.1, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x):
        h = self.patch(x).transpose(1, 2)
        h = torch.cat([self.cls.expand(len(h), -1, -1), h], dim=1)
        return self.head(self.encoder(h)[:, 0])


def parse_config():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if f.type is bool else (f.type if f.type in (int, float) else str)
        parser.add_argument(f"--{f.name}", type=kind, default=f.default)
    return Config(**vars(parser.parse_args()))


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@torch.no_grad()
def validate(model, loader):
    model.eval()
    losses, correct, count = [], 0, 0
    for x, y in loader:
        logits = model(x)
        losses.append(F.binary_cross_entropy_with_logits(logits, y).item())
        correct += ((logits > 0).float() == y).sum().item()
        count += y.numel()
    return float(np.mean(losses)), correct / count


def main():
    cfg = parse_config()
    dist.init_dist(cfg.launcher)
    cfg.world_size = dist.get_world_size()
    rank = dist.get_rank()
    seed = cfg.seed + rank  # different augmentation/dropout streams per worker
    set_seed(seed)

    train_loader, val_loader = make_loaders(cfg, rank, cfg.world_size, seed)
    model = ECGTransformer()
    cfg.lr = cfg.lr * cfg.world_size  # linear scaling rule
    optimizer = build_optimizer(model, cfg)
    scheduler = build_scheduler(optimizer, cfg, len(train_loader) // cfg.accum_steps)
    model, optimizer = dist.wrap(model, optimizer, accum_steps=cfg.accum_steps)

    best = 0.0
    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        optimizer.zero_grad()
        usable = len(train_loader) - len(train_loader) % cfg.accum_steps  # whole accumulation groups only
        for it, (x, y) in enumerate(train_loader):
            if it >= usable:
                break
            loss = F.binary_cross_entropy_with_logits(model(x), y) / cfg.accum_steps
            loss.backward()
            if (it + 1) % cfg.accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
        val_loss, val_acc = validate(model, val_loader)
        if dist.is_main_process():
            print(f"epoch {epoch} val_loss {val_loss:.4f} val_acc {val_acc:.4f}", flush=True)
        best = max(best, val_acc)
        ckpt.save(cfg.out, getattr(model, "module", model), optimizer, epoch, best)


if __name__ == "__main__":
    main()
