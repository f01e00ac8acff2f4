import numpy as np


def roc_auc(y, s):
    """Mann-Whitney form of the area under the ROC curve for one tag."""
    pos, neg = s[y > 0.5], s[y <= 0.5]
    if len(pos) == 0 or len(neg) == 0:
        return np.nan
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
    return (ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def average_precision(y, s):
    order = np.argsort(-s)
    y = y[order]
    if y.sum() == 0:
        return np.nan
    hits = np.cumsum(y)
    precision = hits / np.arange(1, len(y) + 1)
    return float((precision * y).sum() / y.sum())


def tag_metrics(targets, scores):
    """Macro ROC-AUC and mAP over tags (tags without positives are skipped)."""
    aucs = [roc_auc(targets[:, k], scores[:, k]) for k in range(targets.shape[1])]
    aps = [average_precision(targets[:, k], scores[:, k]) for k in range(targets.shape[1])]
    return {"roc_auc": float(np.nanmean(aucs)), "pr_auc": float(np.nanmean(aps))}
