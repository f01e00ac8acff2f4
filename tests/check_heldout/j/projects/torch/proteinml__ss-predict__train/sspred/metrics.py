import torch

from sspred.dist import hvd
from sspred.data import IGNORE


class Q3Accuracy:
    """Per-residue accuracy; ``compute()`` returns the value over all workers."""

    def __init__(self):
        self.correct = torch.zeros((), dtype=torch.float64)
        self.total = torch.zeros((), dtype=torch.float64)

    def update(self, logits, labels):
        mask = labels != IGNORE
        self.correct += (logits.argmax(-1)[mask] == labels[mask]).sum().cpu().double()
        self.total += mask.sum().cpu().double()

    def compute(self):
        correct = hvd.allreduce(self.correct, op=hvd.Sum, name="q3_correct")
        total = hvd.allreduce(self.total, op=hvd.Sum, name="q3_total")
        return (correct / total.clamp(min=1)).item()


class MeanLoss:
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, value, n):
        self.sum += value * n
        self.n += n

    def compute(self):
        packed = hvd.allreduce(torch.tensor([self.sum, float(self.n)], dtype=torch.float64), op=hvd.Sum,
                               name="mean_loss")
        return (packed[0] / packed[1].clamp(min=1)).item()
