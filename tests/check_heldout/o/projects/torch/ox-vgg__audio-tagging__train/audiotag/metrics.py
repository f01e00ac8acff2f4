import numpy as np


def average_precision(scores, labels):
    order = np.argsort(-scores)
    labels = labels[order]
    hits = np.cumsum(labels)
    if hits[-1] == 0:
        return np.nan
    prec = hits / np.arange(1, len(labels) + 1)
    return float((prec * labels).sum() / labels.sum())


def mean_average_precision(scores, labels):
    aps = [average_precision(scores[:, c], labels[:, c]) for c in range(labels.shape[1])]
    return float(np.nanmean(aps))


class AverageMeter:
    def __init__(self):
        self.sum, self.n = 0.0, 0

    def update(self, v, k=1):
        self.sum += v * k
        self.n += k

    @property
    def avg(self):
        return self.sum / max(1, self.n)
