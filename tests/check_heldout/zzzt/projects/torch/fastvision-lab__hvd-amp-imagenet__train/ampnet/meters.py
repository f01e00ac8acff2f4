import time
import torch
import horovod.torch as hvd


class Metric(object):
    """Running mean of a value, averaged over all horovod ranks on every update."""

    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu().float(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return (self.sum / self.n).item()


def accuracy(output, target):
    pred = output.max(1, keepdim=True)[1]
    return pred.eq(target.view_as(pred)).float().mean()


class Throughput(object):
    def __init__(self):
        self.t0 = time.time()
        self.images = 0

    def step(self, n):
        self.images += n

    def reset(self):
        self.t0 = time.time()
        self.images = 0

    def rates(self):
        dt = max(time.time() - self.t0, 1e-6)
        per_rank = self.images / dt
        total = hvd.allreduce(torch.tensor(per_rank), op=hvd.Sum, name="ips").item()
        return per_rank, total
