import torch
import torch.nn as nn
import torch.nn.functional as F


class DiceCELoss(nn.Module):
    def __init__(self, num_classes, smooth=1e-5, ce_weight=1.0):
        super().__init__()
        self.num_classes, self.smooth, self.ce_weight = num_classes, smooth, ce_weight

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target)
        probs = logits.softmax(1)
        onehot = F.one_hot(target, self.num_classes).permute(0, 3, 1, 2).float()
        inter = (probs * onehot).sum(dim=(0, 2, 3))
        denom = probs.sum(dim=(0, 2, 3)) + onehot.sum(dim=(0, 2, 3))
        dice = (2 * inter + self.smooth) / (denom + self.smooth)
        return self.ce_weight * ce + (1 - dice[1:].mean())


@torch.no_grad()
def dice_counts(logits, target, num_classes):
    """Per-class (intersection, |pred| + |gold|) for foreground classes, as a (2, C-1) tensor."""
    pred = logits.argmax(1)
    rows = []
    for c in range(1, num_classes):
        p, g = pred == c, target == c
        rows.append(torch.stack([(p & g).sum(), p.sum() + g.sum()]))
    return torch.stack(rows, dim=1).double()
