import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision.models import resnet18


def mlp(in_dim, hidden=4096, out=256):
    return nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden),
                         nn.ReLU(inplace=True), nn.Linear(hidden, out))


class BYOL(nn.Module):
    """Online network (encoder + projector + predictor) and an EMA target network."""

    def __init__(self):
        super().__init__()
        backbone = resnet18(weights=None)
        feat = backbone.fc.in_features
        backbone.fc = nn.Identity()
        self.online = nn.Sequential(backbone, mlp(feat))
        self.predictor = mlp(256)
        self.target = copy.deepcopy(self.online)
        for p in self.target.parameters():
            p.requires_grad_(False)

    @staticmethod
    def regression_loss(p, z):
        return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()

    def forward(self, v1, v2):
        p1, p2 = self.predictor(self.online(v1)), self.predictor(self.online(v2))
        with torch.no_grad():
            z1, z2 = self.target(v1), self.target(v2)
        return self.regression_loss(p1, z2) + self.regression_loss(p2, z1)

    @torch.no_grad()
    def update_target(self, step, total_steps, base_tau):
        tau = 1 - (1 - base_tau) * (math.cos(math.pi * step / total_steps) + 1) / 2
        for po, pt in zip(self.online.parameters(), self.target.parameters()):
            pt.mul_(tau).add_(po.detach(), alpha=1 - tau)
