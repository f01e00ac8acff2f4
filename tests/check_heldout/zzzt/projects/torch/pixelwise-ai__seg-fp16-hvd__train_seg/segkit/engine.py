import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

from .hvd_utils import reduce_mean, log0


class TinyFCN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True))
        self.head = nn.Conv2d(64, num_classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        return F.interpolate(self.head(self.enc(x)), size=(h, w), mode="bilinear",
                             align_corners=False)


def miou(pred, target, n):
    inter = torch.zeros(n)
    union = torch.zeros(n)
    for c in range(n):
        p, t = pred == c, target == c
        inter[c] += (p & t).sum().item()
        union[c] += (p | t).sum().item()
    return inter, union


def train_one_epoch(cfg, model, optimizer, scaler, loader, epoch, device):
    model.train()
    t0, seen = time.time(), 0
    for it, (img, mask) in enumerate(loader):
        img, mask = img.to(device), mask.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=cfg.amp and cfg.cuda):
            loss = F.cross_entropy(model(img), mask)
        scaler.scale(loss).backward()
        # grads must be reduced before the scaler unscales them
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        if cfg.clip_norm > 0:
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_norm)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        seen += img.size(0)
        if it % cfg.log_every == 0:
            ips = seen / (time.time() - t0)
            log0("ep %d it %d loss %.4f  %.1f img/s (rank0) ~%.1f img/s (job)"
                 % (epoch, it, loss.item(), ips, ips * hvd.size()))


@torch.no_grad()
def evaluate(cfg, model, loader, device):
    model.eval()
    inter = torch.zeros(cfg.num_classes)
    union = torch.zeros(cfg.num_classes)
    for img, mask in loader:
        pred = model(img.to(device)).argmax(1).cpu()
        i, u = miou(pred, mask, cfg.num_classes)
        inter += i
        union += u
    inter = hvd.allreduce(inter, op=hvd.Sum, name="inter")
    union = hvd.allreduce(union, op=hvd.Sum, name="union")
    return (inter / union.clamp(min=1)).mean().item()
