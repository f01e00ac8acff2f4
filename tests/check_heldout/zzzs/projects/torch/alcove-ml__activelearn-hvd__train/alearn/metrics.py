import torch
import horovod.torch as hvd


class SumMeter(object):
    """keeps (sum, count) locally, reduces over workers only in compute()"""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.total = torch.zeros(2, dtype=torch.float64)

    def update(self, value_sum, n):
        self.total += torch.tensor([float(value_sum), float(n)], dtype=torch.float64)

    def compute(self):
        t = hvd.allreduce(self.total, op=hvd.Sum, name="meter." + self.name)
        return (t[0] / t[1].clamp(min=1)).item()
