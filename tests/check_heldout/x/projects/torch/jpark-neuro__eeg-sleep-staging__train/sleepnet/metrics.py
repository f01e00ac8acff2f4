import horovod.torch as hvd
import torch


class ConfusionMeter:
    def __init__(self, n_classes):
        self.n = n_classes
        self.cm = torch.zeros(n_classes, n_classes, dtype=torch.float64)

    def add(self, pred, target):
        idx = target.cpu() * self.n + pred.cpu()
        self.cm += torch.bincount(idx, minlength=self.n * self.n).reshape(self.n, self.n).double()

    def allreduce(self):
        """Sum the confusion matrices of all workers (each saw a different shard)."""
        self.cm = hvd.allreduce(self.cm, op=hvd.Sum, name="confusion")

    def accuracy(self):
        return (self.cm.diag().sum() / self.cm.sum().clamp(min=1)).item()

    def macro_f1(self):
        tp = self.cm.diag()
        prec = tp / self.cm.sum(0).clamp(min=1)
        rec = tp / self.cm.sum(1).clamp(min=1)
        return (2 * prec * rec / (prec + rec).clamp(min=1e-12)).mean().item()

    def kappa(self):
        total = self.cm.sum().clamp(min=1)
        po = self.cm.diag().sum() / total
        pe = (self.cm.sum(0) * self.cm.sum(1)).sum() / total ** 2
        return ((po - pe) / (1 - pe).clamp(min=1e-12)).item()
