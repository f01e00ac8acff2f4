import torch
import torch.nn as nn


class CenterLoss(nn.Module):
    """Center loss (Wen et al., ECCV 2016); the centers are learnable."""

    def __init__(self, num_classes, feat_dim):
        super().__init__()
        self.centers = nn.Parameter(torch.randn(num_classes, feat_dim))

    def forward(self, x, labels):
        c = self.centers.index_select(0, labels)
        return ((x - c) ** 2).sum(dim=1).clamp(min=1e-12, max=1e12).mean() / 2
