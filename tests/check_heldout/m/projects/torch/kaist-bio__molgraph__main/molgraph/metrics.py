import math

import torch
import horovod.torch as hvd


class RegressionMeter:
    """Accumulates |err|, err^2 and counts locally; `compute` sums them over all workers."""

    def __init__(self, std=1.0):
        self.std = std
        self.stats = torch.zeros(3, dtype=torch.float64)

    def update(self, pred, target):
        err = (pred.detach().double().cpu() - target.detach().double().cpu()) * self.std
        self.stats += torch.stack([err.abs().sum(), (err ** 2).sum(), torch.tensor(float(err.numel()),
                                                                                     dtype=torch.float64)])

    def compute(self, name):
        total = hvd.allreduce(self.stats, op=hvd.Sum, name=name)
        mae, sse, n = total.tolist()
        return {"mae": mae / max(n, 1.0), "rmse": math.sqrt(sse / max(n, 1.0))}
