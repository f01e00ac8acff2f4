"""Running metrics (adapted from the DETR/torchvision reference utils)."""
from collections import defaultdict

import torch
import torch.distributed as dist


def is_dist_avail_and_initialized():
    if not dist.is_available():
        return False
    if not dist.is_initialized():
        return False
    return True


class SmoothedValue:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    def synchronize_between_processes(self):
        if not is_dist_avail_and_initialized():
            return
        t = torch.tensor([self.count, self.total], dtype=torch.float64)
        dist.barrier()
        dist.all_reduce(t)
        self.count, self.total = int(t[0].item()), t[1].item()

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class MetricLogger:
    def __init__(self):
        self.meters = defaultdict(SmoothedValue)

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(float(v))

    def synchronize_between_processes(self):
        for meter in self.meters.values():
            meter.synchronize_between_processes()

    def __str__(self):
        return "  ".join(f"{k}: {m.global_avg:.4f}" for k, m in self.meters.items())


def confusion_iou(pred, target, num_classes):
    """Mean IoU of one batch over the classes present in it."""
    valid = target != 255
    ious = []
    for c in range(num_classes):
        p, t = (pred == c) & valid, (target == c) & valid
        union = (p | t).sum().item()
        if union:
            ious.append((p & t).sum().item() / union)
    return sum(ious) / max(len(ious), 1)
