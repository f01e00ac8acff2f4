import torch
import torch.nn as nn
import torch.nn.functional as F


def soft_dice(logits, target, num_classes, eps=1e-5):
    probs = logits.softmax(1)
    onehot = F.one_hot(target, num_classes).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    inter = (probs * onehot).sum(dims)
    denom = probs.sum(dims) + onehot.sum(dims)
    return (2 * inter + eps) / (denom + eps)


class UncertaintyDiceCE(nn.Module):
    """Dice + CE, balanced by learned homoscedastic uncertainties (Kendall et al. 2018)."""

    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes
        self.log_var = nn.Parameter(torch.zeros(2))

    def forward(self, logits, target):
        dice_loss = 1 - soft_dice(logits, target, self.num_classes)[1:].mean()
        ce_loss = F.cross_entropy(logits, target)
        w = torch.exp(-self.log_var)
        return w[0] * dice_loss + w[1] * ce_loss + self.log_var.sum()


@torch.no_grad()
def hard_dice_per_class(logits, target, num_classes):
    pred = logits.argmax(1)
    out = []
    for c in range(1, num_classes):
        p, t = pred == c, target == c
        denom = p.sum() + t.sum()
        out.append((2 * (p & t).sum() / denom).item() if denom > 0 else 1.0)
    return out
