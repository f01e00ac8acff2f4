import torch
import horovod.torch as hvd


class Accuracy(object):
    """Accumulates correct/total locally; `compute` sums both over all ranks."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.correct = 0
        self.total = 0

    def update(self, logits, target):
        self.correct += (logits.argmax(-1) == target).sum().item()
        self.total += target.numel()

    def compute(self):
        t = hvd.allreduce(torch.tensor([self.correct, self.total], dtype=torch.float64),
                          op=hvd.Sum, name="acc_counts")
        return (t[0] / t[1].clamp(min=1)).item()


class Mean(object):
    def __init__(self, name):
        self.name = name
        self.sum = 0.0
        self.n = 0

    def update(self, value, n=1):
        self.sum += float(value) * n
        self.n += n

    def compute(self):
        t = hvd.allreduce(torch.tensor([self.sum, self.n], dtype=torch.float64),
                          op=hvd.Sum, name="mean_" + self.name)
        return (t[0] / t[1].clamp(min=1)).item()
