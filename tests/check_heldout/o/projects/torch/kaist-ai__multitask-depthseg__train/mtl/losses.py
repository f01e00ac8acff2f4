import torch
import torch.nn as nn
import torch.nn.functional as F


class UncertaintyWeightedLoss(nn.Module):
    """Kendall et al. 2018: L = sum_t exp(-s_t) * L_t + s_t, with learned s_t = log sigma_t^2."""

    def __init__(self, tasks=("seg", "depth"), ignore_index=255):
        super().__init__()
        self.tasks = list(tasks)
        self.log_vars = nn.Parameter(torch.zeros(len(self.tasks)))
        self.ignore_index = ignore_index

    def task_losses(self, out, batch):
        seg = F.cross_entropy(out["seg"].float(), batch["seg"], ignore_index=self.ignore_index)
        valid = batch["depth"] > 0
        depth = F.l1_loss(out["depth"].float()[valid], batch["depth"][valid]) if valid.any() \
            else out["depth"].sum() * 0.0
        return {"seg": seg, "depth": depth}

    def forward(self, out, batch):
        parts = self.task_losses(out, batch)
        total = 0.0
        for i, t in enumerate(self.tasks):
            total = total + torch.exp(-self.log_vars[i]) * parts[t] + self.log_vars[i]
        return total, {k: v.detach() for k, v in parts.items()}
