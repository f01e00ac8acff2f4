import time

import torch
import torch.nn.functional as F

from engine.dist import all_mean, all_sum


def train_one_epoch(model, loader, optimizer, scaler, scheduler, device, clip=1.0):
    model.train()
    t0, total = time.time(), 0.0
    for images, targets in loader:
        images, targets = images.to(device, non_blocking=True), targets.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=scaler.is_enabled()):
            loss = F.cross_entropy(model(images), targets, label_smoothing=0.1)
        scaler.scale(loss).backward()
        # allreduce first, then unscale/clip the reduced gradients
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        total += loss.item()
    return all_mean(total / max(1, len(loader)), "train_loss"), time.time() - t0


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = seen = 0
    for images, targets in loader:
        pred = model(images.to(device)).argmax(1).cpu()
        correct += (pred == targets).sum().item()
        seen += targets.numel()
    return all_sum(correct, "val_correct") / all_sum(seen, "val_seen")
