import torch
import horovod.torch as hvd


class Meter:
    """Running average of a scalar, optionally reduced over Horovod ranks."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += float(value) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)

    def sync(self):
        total = hvd.allreduce(torch.tensor(self.sum, dtype=torch.float64),
                              op=hvd.Sum, name=f"{self.name}.sum")
        self.sum = total.item()
        return self.avg

    def __str__(self):
        return f"{self.name} {self.avg:.4f}"
