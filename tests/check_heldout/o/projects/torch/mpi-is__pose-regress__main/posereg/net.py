import torch
import torch.nn as nn
import torch.nn.functional as F


class PoseNet(nn.Module):
    def __init__(self, channels=(32, 64, 128, 256)):
        super().__init__()
        layers, cin = [], 3
        for c in channels:
            layers += [nn.Conv2d(cin, c, 3, 2, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True)]
            cin = c
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, 512)
        self.xyz = nn.Linear(512, 3)
        self.wpqr = nn.Linear(512, 4)

    def forward(self, x):
        h = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        h = F.dropout(F.relu(self.fc(h)), 0.3, self.training)
        q = self.wpqr(h)
        return self.xyz(h), q / q.norm(dim=1, keepdim=True).clamp_min(1e-8)


def pose_loss(pred, target, beta):
    t, q = pred
    t_gt, q_gt = target
    return F.mse_loss(t, t_gt) + beta * F.mse_loss(q, q_gt), (t - t_gt).norm(dim=1)


def rotation_error_deg(q, q_gt):
    d = (q * q_gt).sum(1).abs().clamp(max=1.0)
    return torch.rad2deg(2 * torch.acos(d))
