import numpy as np


def lwlrap_and_map(truth, scores):
    """Label-weighted label-ranking AP (DCASE) and macro mAP over classes with positives."""
    ranks = (-scores).argsort(1).argsort(1) + 1
    precisions, weights = [], []
    for i in range(truth.shape[0]):
        pos = np.flatnonzero(truth[i])
        for c in pos:
            precisions.append((ranks[i, pos] <= ranks[i, c]).sum() / ranks[i, c])
    lwlrap = float(np.mean(precisions)) if precisions else 0.0
    aps = []
    for c in range(truth.shape[1]):
        if truth[:, c].sum() == 0:
            continue
        order = np.argsort(-scores[:, c])
        hit = truth[order, c]
        aps.append(float((np.cumsum(hit) / np.arange(1, len(hit) + 1) * hit).sum() / hit.sum()))
    return lwlrap, float(np.mean(aps))
