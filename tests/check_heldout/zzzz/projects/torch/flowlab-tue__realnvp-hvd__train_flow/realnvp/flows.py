import math
import torch
import torch.nn as nn


def checker_mask(c, h, w, parity):
    m = ((torch.arange(h).view(-1, 1) + torch.arange(w).view(1, -1)) % 2 == parity).float()
    return m.view(1, 1, h, w).expand(1, c, h, w)


class ResNetST(nn.Module):
    def __init__(self, c_in, mid, c_out):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(c_in, mid, 3, padding=1), nn.ReLU(),
            nn.Conv2d(mid, mid, 1), nn.ReLU(),
            nn.Conv2d(mid, 2 * c_out, 3, padding=1))
        self.net[-1].weight.data.zero_(); self.net[-1].bias.data.zero_()
        self.scale = nn.Parameter(torch.ones(1, c_out, 1, 1))

    def forward(self, x):
        s, t = self.net(x).chunk(2, dim=1)
        return self.scale * torch.tanh(s), t


class Coupling(nn.Module):
    def __init__(self, c, hw, mid, parity):
        super().__init__()
        self.register_buffer("mask", checker_mask(c, hw, hw, parity))
        self.st = ResNetST(c, mid, c)

    def forward(self, x, logdet):
        xm = x * self.mask
        s, t = self.st(xm)
        s, t = s * (1 - self.mask), t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * s.exp() + t)
        return y, logdet + s.flatten(1).sum(1)

    def inverse(self, y):
        ym = y * self.mask
        s, t = self.st(ym)
        s, t = s * (1 - self.mask), t * (1 - self.mask)
        return ym + (1 - self.mask) * ((y - t) * (-s).exp())


class RealNVP(nn.Module):
    def __init__(self, c=3, hw=32, n_blocks=4, mid=64, **unused):
        super().__init__()
        self.shape = (c, hw, hw)
        self.layers = nn.ModuleList([Coupling(c, hw, mid, i % 2) for i in range(n_blocks)])

    @staticmethod
    def preprocess(x, alpha=0.05):
        y = alpha + (1 - 2 * alpha) * x
        z = torch.log(y) - torch.log1p(-y)
        ldj = (math.log(1 - 2 * alpha) - torch.log(y) - torch.log1p(-y)).flatten(1).sum(1)
        return z, ldj

    def forward(self, x):
        z, logdet = self.preprocess(x)
        for layer in self.layers:
            z, logdet = layer(z, logdet)
        return z, logdet

    def nll(self, x):
        z, logdet = self(x)
        prior = -0.5 * (z ** 2 + math.log(2 * math.pi)).flatten(1).sum(1)
        return -(prior + logdet)

    @torch.no_grad()
    def sample(self, n, device):
        z = torch.randn(n, *self.shape, device=device)
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return torch.sigmoid(z)
