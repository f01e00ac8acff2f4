import torch


def roc_auc(scores, labels):
    """Mann-Whitney U estimate of ROC-AUC (ties counted half)"""
    scores = scores.flatten().double()
    labels = labels.flatten()
    pos = scores[labels > 0.5]
    neg = scores[labels <= 0.5]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = torch.argsort(torch.cat([pos, neg]))
    ranks = torch.empty_like(order, dtype=torch.double)
    ranks[order] = torch.arange(1, len(order) + 1, dtype=torch.double)
    u = ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2
    return (u / (len(pos) * len(neg))).item()
