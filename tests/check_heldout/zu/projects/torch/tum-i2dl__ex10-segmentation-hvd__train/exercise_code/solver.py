import math

import torch
import torch.nn.functional as F

from .dist_utils import sum_across_workers


def lr_at(epoch, base_lr, warmup, total):
    if epoch < warmup:
        return base_lr * (epoch + 1) / warmup
    return 0.5 * base_lr * (1 + math.cos(math.pi * (epoch - warmup) / max(1, total - warmup)))


def train_epoch(model, optimizer, scaler, loader, device, use_amp, clip=1.0):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=use_amp):
            loss = F.cross_entropy(model(x), y, ignore_index=-1)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
    return loss.item()


@torch.no_grad()
def evaluate(model, loader, device, num_classes):
    model.eval()
    inter = torch.zeros(num_classes, dtype=torch.float64)
    union = torch.zeros(num_classes, dtype=torch.float64)
    for x, y in loader:
        pred = model(x.to(device)).argmax(1).cpu()
        valid = y >= 0
        for c in range(num_classes):
            p, t = (pred == c) & valid, (y == c) & valid
            inter[c] += (p & t).sum()
            union[c] += (p | t).sum()
    inter = sum_across_workers(inter, "iou_inter")
    union = sum_across_workers(union, "iou_union")
    seen = union > 0
    return (inter[seen] / union[seen]).mean().item()
