import torch
import horovod.torch as hvd


class AverageMeter:
    """Running average that can be reduced over all Horovod ranks."""

    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += float(value) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)

    def all_reduce(self):
        t = torch.tensor([self.sum, float(self.count)], dtype=torch.float64)
        t = hvd.allreduce(t, op=hvd.Sum, name=f"meter.{self.name}")
        self.sum, self.count = t[0].item(), int(t[1].item())
        return self.avg


@torch.no_grad()
def accuracy(output, target):
    pred = output.argmax(dim=1)
    return (pred == target).float().mean().item()
