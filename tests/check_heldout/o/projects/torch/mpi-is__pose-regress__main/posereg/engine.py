import math
import time

import torch

from .data import iterate, partition
from .net import pose_loss, rotation_error_deg


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def add(self, v, n):
        self.total += float(v) * n
        self.count += n

    def mean(self):
        return self.total / max(self.count, 1)


def lr_for_epoch(cfg, epoch):
    if epoch < cfg.warmup_epochs:
        return cfg.lr * (epoch + 1) / cfg.warmup_epochs
    p = (epoch - cfg.warmup_epochs) / max(1, cfg.epochs - cfg.warmup_epochs)
    return 0.5 * cfg.lr * (1 + math.cos(math.pi * p))


def train_one_epoch(model, optimizer, frames, cfg, epoch, world_size, rank, batch_size, device):
    model.train()
    lr = lr_for_epoch(cfg, epoch)
    for g in optimizer.param_groups:
        g["lr"] = lr
    meter, t0 = Meter(), time.time()
    idx = partition(len(frames), world_size, rank, epoch, cfg.seed)
    for x, (t, q) in iterate(frames, idx, batch_size, augment=True):
        x, t, q = x.to(device), t.to(device), q.to(device)
        loss, _ = pose_loss(model(x), (t, q), cfg.beta)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.add(loss.item(), x.size(0))
    return meter.mean(), lr, time.time() - t0


@torch.no_grad()
def evaluate_full(model, frames, device, batch_size=128):
    """Median translation / rotation error over the whole test split (single process)."""
    model.eval()
    terr, rerr = [], []
    for x, (t, q) in iterate(frames, list(range(len(frames))), batch_size):
        pt, pq = model(x.to(device))
        terr.append((pt.cpu() - t).norm(dim=1))
        rerr.append(rotation_error_deg(pq.cpu(), q))
    return torch.cat(terr).median().item(), torch.cat(rerr).median().item()
