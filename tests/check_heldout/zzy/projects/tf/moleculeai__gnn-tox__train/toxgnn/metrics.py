import numpy as np


def roc_auc(y, s):
    y = y.astype(bool)
    n_pos, n_neg = y.sum(), (~y).sum()
    if n_pos == 0 or n_neg == 0:
        return np.nan
    ranks = np.empty(len(s))
    ranks[np.argsort(s, kind="mergesort")] = np.arange(1, len(s) + 1)
    return (ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def multitask_auroc(y, s, mask):
    """Mean AUROC over tasks, only on measured (mask == 1) compounds."""
    aucs = [roc_auc(y[mask[:, t] > 0, t], s[mask[:, t] > 0, t]) for t in range(y.shape[1])]
    return float(np.nanmean(aucs)), aucs
