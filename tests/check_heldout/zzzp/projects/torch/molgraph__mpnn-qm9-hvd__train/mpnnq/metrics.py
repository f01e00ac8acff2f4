class MAEMeter(object):
    """accumulates |pred - y| over a loader; value() is the per-molecule MAE"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.abs_err = 0.0
        self.count = 0

    def update(self, pred, y):
        self.abs_err += (pred - y).abs().sum().item()
        self.count += y.numel()

    def value(self):
        return self.abs_err / max(self.count, 1)


class AverageMeter(object):
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n
        self.n += n

    @property
    def avg(self):
        return self.sum / max(self.n, 1)
