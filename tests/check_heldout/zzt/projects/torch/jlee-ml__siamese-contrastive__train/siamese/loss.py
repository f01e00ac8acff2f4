import torch
import torch.nn as nn
import torch.nn.functional as F


class ContrastiveLoss(nn.Module):
    """Hadsell et al. 2006: pull positives together, push negatives beyond the margin."""

    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin

    def forward(self, ea, eb, same):
        d = F.pairwise_distance(ea, eb)
        return (same * d.pow(2) + (1 - same) * F.relu(self.margin - d).pow(2)).mean() / 2


def verification_hits(ea, eb, same, threshold):
    pred = (F.pairwise_distance(ea, eb) < threshold).float()
    return (pred == same).sum()
