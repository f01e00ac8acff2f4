import torch
import torch.nn as nn
import torch.nn.functional as F


class UncertaintyWeighting(nn.Module):
    """Kendall et al. 2018: learn one log-variance per task."""

    def __init__(self, n_tasks=2):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))

    def forward(self, cls_logits, reg_pred, y_cls, y_reg):
        l_cls = F.cross_entropy(cls_logits, y_cls)
        l_reg = F.mse_loss(reg_pred, y_reg)
        w = torch.exp(-self.log_vars)
        return w[0] * l_cls + w[1] * l_reg + self.log_vars.sum(), (l_cls.item(), l_reg.item())


class FixedWeighting(nn.Module):
    """Baseline: hand-set task weights (no learnable parameters)."""

    def __init__(self, w_cls=1.0, w_reg=0.5):
        super().__init__()
        self.w_cls, self.w_reg = w_cls, w_reg

    def forward(self, cls_logits, reg_pred, y_cls, y_reg):
        l_cls = F.cross_entropy(cls_logits, y_cls)
        l_reg = F.mse_loss(reg_pred, y_reg)
        return self.w_cls * l_cls + self.w_reg * l_reg, (l_cls.item(), l_reg.item())


def build(name):
    if name == "uncertainty":
        return UncertaintyWeighting(n_tasks=2)
    if name == "fixed":
        return FixedWeighting()
    raise ValueError(f"unknown weighting {name!r}")
