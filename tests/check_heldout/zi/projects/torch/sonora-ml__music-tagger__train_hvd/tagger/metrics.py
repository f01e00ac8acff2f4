import numpy as np


def average_precision(scores, targets):
    order = np.argsort(-scores)
    hits = targets[order]
    if hits.sum() == 0:
        return np.nan
    precision = np.cumsum(hits) / (np.arange(len(hits)) + 1)
    return float((precision * hits).sum() / hits.sum())


def mean_average_precision(scores, targets):
    aps = [average_precision(scores[:, k], targets[:, k]) for k in range(targets.shape[1])]
    return float(np.nanmean(aps))
