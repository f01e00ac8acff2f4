import numpy as np
import torch


def roc_auc(labels, scores):
    """Rank-based AUC (Mann-Whitney U), no sklearn dependency."""
    order = np.argsort(scores)
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels > 0.5
    n_pos, n_neg = pos.sum(), (~pos).sum()
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    crit = torch.nn.BCEWithLogitsLoss(reduction="sum")
    total, n = 0.0, 0
    scores, labels = [], []
    for dense, sparse, label in loader:
        dense, sparse, label = dense.to(device), sparse.to(device), label.to(device)
        logit = model(dense, sparse).squeeze(1)
        total += crit(logit, label).item()
        n += label.numel()
        scores.append(torch.sigmoid(logit).cpu().numpy())
        labels.append(label.cpu().numpy())
    return total / max(n, 1), roc_auc(np.concatenate(labels), np.concatenate(scores))
