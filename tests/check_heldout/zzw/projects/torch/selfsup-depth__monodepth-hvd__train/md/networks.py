import torch
import torch.nn as nn
import torch.nn.functional as F


def conv(cin, cout, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, s, 1), nn.ELU(inplace=True))


class DepthNet(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.enc = nn.Sequential(conv(3, c, 2), conv(c, 2 * c, 2), conv(2 * c, 4 * c, 2))
        self.dec = nn.Sequential(conv(4 * c, 2 * c), nn.Conv2d(2 * c, 1, 3, 1, 1))

    def forward(self, x):
        d = self.dec(self.enc(x))
        return torch.sigmoid(F.interpolate(d, size=x.shape[-2:], mode="bilinear", align_corners=False))


def axisangle_to_matrix(aa, t):
    angle = aa.norm(dim=-1, keepdim=True).clamp(min=1e-7)
    k = aa / angle
    K = torch.zeros(aa.shape[0], 3, 3, device=aa.device)
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -k[:, 2], k[:, 1], -k[:, 0]
    K = K - K.transpose(1, 2)
    s, c = torch.sin(angle)[..., None], torch.cos(angle)[..., None]
    R = torch.eye(3, device=aa.device)[None] + s * K + (1 - c) * (K @ K)
    T = torch.eye(4, device=aa.device).repeat(aa.shape[0], 1, 1)
    T[:, :3, :3], T[:, :3, 3] = R, t
    return T


class PoseNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.net = nn.Sequential(conv(6, c, 2), conv(c, 2 * c, 2), conv(2 * c, 4 * c, 2), nn.Conv2d(4 * c, 6, 1))

    def forward(self, a, b):
        out = 0.01 * self.net(torch.cat([a, b], 1)).mean((2, 3))
        return axisangle_to_matrix(out[:, :3], out[:, 3:])
