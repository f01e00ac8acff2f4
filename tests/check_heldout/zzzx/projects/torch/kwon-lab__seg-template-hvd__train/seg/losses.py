import torch
import torch.nn as nn


class CrossEntropy2d(nn.Module):
    def __init__(self, ignore_index=255, weight=None):
        super().__init__()
        self.ce = nn.CrossEntropyLoss(weight=weight, ignore_index=ignore_index)

    def forward(self, logits, target):
        return self.ce(logits, target)


def confusion_matrix(pred, target, n_classes, ignore_index=255):
    keep = target != ignore_index
    idx = target[keep] * n_classes + pred[keep]
    return torch.bincount(idx, minlength=n_classes ** 2).reshape(n_classes, n_classes)


def miou_from_confusion(cm):
    cm = cm.double()
    inter = torch.diag(cm)
    union = cm.sum(0) + cm.sum(1) - inter
    valid = union > 0
    return (inter[valid] / union[valid]).mean().item(), (inter.sum() / cm.sum().clamp(min=1)).item()
