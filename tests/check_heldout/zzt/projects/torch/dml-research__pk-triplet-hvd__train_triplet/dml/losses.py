import torch
import torch.nn as nn
import torch.nn.functional as F


class BatchHardTriplet(nn.Module):
    """Hermans et al. 2017: hardest positive and hardest negative per anchor."""

    def __init__(self, margin=0.2):
        super().__init__()
        self.margin = margin

    def forward(self, emb, labels):
        d = torch.cdist(emb, emb)
        same = labels[:, None] == labels[None, :]
        hardest_pos = (d * same.float()).max(1).values
        hardest_neg = d.masked_fill(same, float("inf")).min(1).values
        return F.relu(hardest_pos - hardest_neg + self.margin).mean()
