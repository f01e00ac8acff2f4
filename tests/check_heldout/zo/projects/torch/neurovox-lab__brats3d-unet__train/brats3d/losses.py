import torch
import torch.nn as nn
import torch.nn.functional as F


def soft_dice(logits, target, eps=1e-5):
    n = logits.shape[1]
    prob = logits.softmax(1)
    onehot = F.one_hot(target, n).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    inter = (prob * onehot).sum(dims)
    denom = prob.sum(dims) + onehot.sum(dims)
    return (2 * inter + eps) / (denom + eps)


class DiceFocalLoss(nn.Module):
    """1 - mean foreground soft Dice + focal cross-entropy (class imbalance)."""

    def __init__(self, gamma=2.0, focal_weight=1.0):
        super().__init__()
        self.gamma, self.focal_weight = gamma, focal_weight

    def forward(self, logits, target):
        dice = soft_dice(logits, target)[1:].mean()
        logp = F.log_softmax(logits, 1)
        ce = F.nll_loss(logp, target, reduction="none")
        pt = torch.exp(-ce)
        focal = ((1 - pt) ** self.gamma * ce).mean()
        return (1 - dice) + self.focal_weight * focal


@torch.no_grad()
def dice_per_class(logits, target, n_classes=4):
    """Hard Dice per foreground class (1..n-1) for one batch."""
    pred = logits.argmax(1)
    out = []
    for c in range(1, n_classes):
        p, t = pred == c, target == c
        denom = p.sum() + t.sum()
        out.append(torch.tensor(1.0) if denom == 0 else 2.0 * (p & t).sum().float().cpu() / denom.float().cpu())
    return torch.stack(out)
