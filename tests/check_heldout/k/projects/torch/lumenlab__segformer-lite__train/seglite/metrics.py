import torch

from .dist import hvd


class ConfusionMeter:
    """Accumulates a confusion matrix locally; `sync` sums it over all ranks."""

    def __init__(self, num_classes, device):
        self.n = num_classes
        self.mat = torch.zeros(num_classes, num_classes, dtype=torch.float64, device=device)

    @torch.no_grad()
    def update(self, logits, target):
        pred = logits.argmax(1).flatten()
        target = target.flatten()
        keep = target >= 0
        idx = target[keep] * self.n + pred[keep]
        self.mat += torch.bincount(idx, minlength=self.n * self.n).reshape(self.n, self.n).to(self.mat)

    def sync(self):
        self.mat = hvd.allreduce(self.mat, op=hvd.Sum, name="confusion")
        return self

    def miou(self):
        inter = self.mat.diag()
        union = self.mat.sum(0) + self.mat.sum(1) - inter
        valid = union > 0
        return (inter[valid] / union[valid]).mean().item()

    def pixel_acc(self):
        return (self.mat.diag().sum() / self.mat.sum().clamp(min=1)).item()


class RunningLoss:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    def global_mean(self):
        t = hvd.allreduce(torch.tensor([self.total, float(self.count)], dtype=torch.float64),
                          op=hvd.Sum, name="running_loss")
        return (t[0] / t[1].clamp(min=1)).item()
