import torch
import horovod.torch as hvd


class Meter:
    """sum/count meter; .global_avg() sums both over the ranks (cell 9 of the notebook)"""

    def __init__(self, name):
        self.name = name
        self.total = 0.0
        self.n = 0

    def update(self, val, k=1):
        self.total += float(val) * k
        self.n += k

    def global_avg(self):
        t = torch.tensor([self.total, float(self.n)], dtype=torch.float64)
        t = hvd.allreduce(t, op=hvd.Sum, name="meter." + self.name)
        return (t[0] / t[1].clamp(min=1)).item()
