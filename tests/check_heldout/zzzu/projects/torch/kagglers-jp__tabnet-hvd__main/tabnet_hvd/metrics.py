import numpy as np


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def auc_score(y_true, y_score):
    y_true = np.asarray(y_true)
    desc = np.argsort(-np.asarray(y_score), kind="mergesort")
    y = y_true[desc]
    tps = np.cumsum(y)
    fps = np.cumsum(1 - y)
    if tps[-1] == 0 or fps[-1] == 0:
        return 0.5
    tpr = np.r_[0, tps / tps[-1]]
    fpr = np.r_[0, fps / fps[-1]]
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
