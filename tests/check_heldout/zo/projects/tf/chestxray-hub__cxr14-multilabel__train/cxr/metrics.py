import numpy as np


def auroc(y, s):
    order = np.argsort(-s, kind="mergesort")
    y = y[order]
    tp, fp = np.cumsum(y), np.cumsum(1 - y)
    if tp[-1] == 0 or fp[-1] == 0:
        return float("nan")
    return float(np.trapezoid(np.r_[0, tp / tp[-1]], np.r_[0, fp / fp[-1]]))


def per_label_auroc(labels, scores, names):
    return {n: auroc(labels[:, i], scores[:, i]) for i, n in enumerate(names)}
