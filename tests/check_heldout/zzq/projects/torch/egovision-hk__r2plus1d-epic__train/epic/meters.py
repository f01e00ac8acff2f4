import torch
import horovod.torch as hvd


class AverageMeter:
    def __init__(self, name):
        self.name, self.sum, self.count = name, 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)

    def all_reduce(self):
        t = hvd.allreduce(torch.tensor([self.sum, self.count], dtype=torch.float64),
                          op=hvd.Sum, name=f"meter.{self.name}")
        self.sum, self.count = t[0].item(), int(t[1].item())
        return self
