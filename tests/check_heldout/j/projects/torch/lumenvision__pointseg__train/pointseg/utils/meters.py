import torch

from .dist import reduce_sum


class AverageMeter:
    """Running mean; ``sync()`` turns the per-worker sums into global ones."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    @property
    def avg(self):
        return self.total / max(self.count, 1)

    def sync(self):
        packed = torch.tensor([self.total, float(self.count)], dtype=torch.float64)
        packed = reduce_sum(packed, name="meter." + self.name)
        self.total, self.count = packed[0].item(), int(packed[1].item())
        return self


class ConfusionMatrix:
    def __init__(self, num_classes):
        self.num_classes = num_classes
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.int64)

    def update(self, pred, target):
        idx = target.flatten().cpu() * self.num_classes + pred.flatten().cpu()
        self.mat += torch.bincount(idx, minlength=self.num_classes ** 2).view(self.num_classes, -1)

    def sync(self):
        self.mat = reduce_sum(self.mat, name="confusion")
        return self

    def miou(self):
        m = self.mat.double()
        inter = m.diag()
        union = m.sum(0) + m.sum(1) - inter
        return (inter / union.clamp(min=1)).mean().item()

    def overall_acc(self):
        return (self.mat.diag().sum() / self.mat.sum().clamp(min=1)).item()
