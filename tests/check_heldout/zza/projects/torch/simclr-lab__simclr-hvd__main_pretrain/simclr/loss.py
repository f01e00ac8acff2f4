import torch
import torch.nn as nn
import torch.nn.functional as F


class NTXentLoss(nn.Module):
    """Normalized temperature-scaled cross entropy over the local batch (2N views)."""

    def __init__(self, temperature=0.5):
        super().__init__()
        self.temperature = temperature

    def forward(self, z1, z2):
        n = z1.size(0)
        z = torch.cat([z1, z2], dim=0)
        sim = z @ z.t() / self.temperature
        sim.fill_diagonal_(float("-inf"))
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
        return F.cross_entropy(sim, targets)
