import numpy as np


def f1_from_counts(tp, fp, fn):
    denom = 2 * tp + fp + fn
    return np.where(denom > 0, 2 * tp / np.maximum(denom, 1), 0.0)


def counts(logits, labels, threshold=0.0):
    pred = (logits > threshold).astype(np.float32)
    tp = (pred * labels).sum(0)
    fp = (pred * (1 - labels)).sum(0)
    fn = ((1 - pred) * labels).sum(0)
    return np.stack([tp, fp, fn])
