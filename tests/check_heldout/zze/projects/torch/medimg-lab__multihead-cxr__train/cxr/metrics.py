import torch
import horovod.torch as hvd


def auroc(scores, labels):
    """Mann-Whitney AUC for one binary column; nan when a class is absent."""
    pos, neg = scores[labels > 0.5], scores[labels <= 0.5]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    ranks = torch.empty_like(scores)
    ranks[scores.argsort()] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    return ((ranks[labels > 0.5].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))).item()


def global_auroc(probs, targets):
    probs = hvd.allgather(probs, name="val_probs")
    targets = hvd.allgather(targets, name="val_targets")
    aucs = [auroc(probs[:, k], targets[:, k]) for k in range(probs.size(1))]
    valid = [a for a in aucs if a == a]
    return sum(valid) / max(1, len(valid)), aucs
