import torch
import torch.nn as nn
import torch.nn.functional as F


class UncertaintyWeighting(nn.Module):
    """Kendall et al. 2018: L = sum_i exp(-s_i) * L_i + s_i, with learned s_i = log sigma_i^2."""

    def __init__(self, num_tasks=2):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(num_tasks))

    def forward(self, losses):
        total = 0.0
        for i, loss in enumerate(losses):
            total = total + torch.exp(-self.log_vars[i]) * loss + self.log_vars[i]
        return total


def seg_loss(logits, target, ignore_index=255):
    return F.cross_entropy(logits, target, ignore_index=ignore_index)


def depth_loss(pred, target):
    valid = target > 0
    return F.l1_loss(pred[valid], target[valid]) if valid.any() else pred.sum() * 0.0
