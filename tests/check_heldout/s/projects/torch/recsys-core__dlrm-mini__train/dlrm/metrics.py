import numpy as np


def roc_auc(labels, scores):
    """Mann-Whitney AUC (ties get average rank)."""
    labels = np.asarray(labels)
    scores = np.asarray(scores)
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    s = scores[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    pos = labels == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def logloss(labels, probs, eps=1e-7):
    p = np.clip(np.asarray(probs), eps, 1 - eps)
    y = np.asarray(labels)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())
