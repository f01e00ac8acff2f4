import torch
import torch.nn.functional as F


def dice_bce(logits, target, eps=1.0):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    p = torch.sigmoid(logits)
    inter = (p * target).sum((1, 2, 3))
    dice = 1 - (2 * inter + eps) / (p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + eps)
    return bce + dice.mean()


def f1_counts(logits, target):
    pred = logits > 0
    tgt = target > 0.5
    tp = (pred & tgt).sum().item()
    return tp, pred.sum().item() - tp, tgt.sum().item() - tp
