import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .layers import EqualConv2d, EqualLinear


class MappingNetwork(nn.Module):
    def __init__(self, z_dim=256, w_dim=256, depth=6):
        super().__init__()
        layers = []
        for i in range(depth):
            layers += [EqualLinear(z_dim if i == 0 else w_dim, w_dim, lr_mul=0.01), nn.LeakyReLU(0.2)]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        z = z * torch.rsqrt(z.pow(2).mean(1, keepdim=True) + 1e-8)
        return self.net(z)


class StyledBlock(nn.Module):
    def __init__(self, cin, cout, w_dim):
        super().__init__()
        self.conv1 = EqualConv2d(cin, cout, 3, padding=1)
        self.conv2 = EqualConv2d(cout, cout, 3, padding=1)
        self.style1 = EqualLinear(w_dim, cout * 2)
        self.style2 = EqualLinear(w_dim, cout * 2)

    @staticmethod
    def adain(x, style):
        scale, bias = style.unsqueeze(-1).unsqueeze(-1).chunk(2, 1)
        x = F.instance_norm(x)
        return x * (1 + scale) + bias

    def forward(self, x, w):
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        x = F.leaky_relu(self.adain(self.conv1(x), self.style1(w)), 0.2)
        return F.leaky_relu(self.adain(self.conv2(x), self.style2(w)), 0.2)


class Generator(nn.Module):
    def __init__(self, resolution=64, z_dim=256, w_dim=256, base=256):
        super().__init__()
        self.mapping = MappingNetwork(z_dim, w_dim)
        self.const = nn.Parameter(torch.randn(1, base, 4, 4))
        n_blocks = int(math.log2(resolution)) - 2
        chans = [max(base // (2 ** i), 32) for i in range(n_blocks + 1)]
        self.blocks = nn.ModuleList(StyledBlock(chans[i], chans[i + 1], w_dim) for i in range(n_blocks))
        self.to_rgb = EqualConv2d(chans[-1], 3, 1)

    def forward(self, z):
        w = self.mapping(z)
        x = self.const.expand(z.size(0), -1, -1, -1)
        for block in self.blocks:
            x = block(x, w)
        return torch.tanh(self.to_rgb(x))
