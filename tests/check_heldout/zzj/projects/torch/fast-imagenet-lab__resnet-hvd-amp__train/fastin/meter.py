import torch
import horovod.torch as hvd


class DistAverage:
    """Accumulates sum and count locally; `reduce()` sums both over all workers."""

    def __init__(self, name):
        self.name = name
        self.total = torch.zeros(2, dtype=torch.float64)

    def update(self, value, n=1):
        self.total += torch.tensor([float(value) * n, n], dtype=torch.float64)

    def reduce(self):
        t = hvd.allreduce(self.total, op=hvd.Sum, name=self.name)
        return (t[0] / t[1]).item()
