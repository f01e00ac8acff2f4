"""Validation metrics from summed counts, so that they can be reduced exactly across workers."""
import torch
import torch.nn.functional as F


def batch_counts(logits, y):
    """[summed loss, tp, fp, fn, tn] for one batch."""
    pred = (logits > 0).float()
    return torch.stack([
        F.binary_cross_entropy_with_logits(logits, y, reduction="sum"),
        (pred * y).sum(),
        (pred * (1 - y)).sum(),
        ((1 - pred) * y).sum(),
        ((1 - pred) * (1 - y)).sum(),
    ])


def summarize(counts):
    loss, tp, fp, fn, tn = counts.tolist()
    n = tp + fp + fn + tn
    return {
        "val_loss": loss / max(n, 1.0),
        "val_acc": (tp + tn) / max(n, 1.0),
        "precision": tp / max(tp + fp, 1.0),
        "recall": tp / max(tp + fn, 1.0),
    }
