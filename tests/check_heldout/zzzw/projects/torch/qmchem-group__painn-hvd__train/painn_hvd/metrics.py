import torch


class MAEMeter:
    """running mean absolute error"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.abs_sum = 0.0
        self.count = 0

    def update(self, pred, target, norm=None):
        err = (pred.detach() - target).abs()
        if norm is not None:
            err = err / norm
        self.abs_sum += err.sum().item()
        self.count += err.numel()

    def compute(self):
        return self.abs_sum / max(self.count, 1)


class MetricCollection:
    def __init__(self, *names):
        self.meters = {n: MAEMeter() for n in names}

    def __getitem__(self, n):
        return self.meters[n]

    def reset(self):
        for m in self.meters.values():
            m.reset()

    def compute(self):
        return {n: m.compute() for n, m in self.meters.items()}
