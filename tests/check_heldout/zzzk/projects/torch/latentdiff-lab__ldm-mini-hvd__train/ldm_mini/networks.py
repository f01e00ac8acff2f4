import torch
import torch.nn as nn
import torch.nn.functional as F


class FrozenAE(nn.Module):
    """stand-in for the pretrained KL autoencoder (weights are loaded elsewhere)"""

    def __init__(self, zc=4):
        super().__init__()
        self.enc = nn.Conv2d(3, zc, 4, stride=4)
        self.dec = nn.ConvTranspose2d(zc, 3, 4, stride=4)
        self.feat = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.requires_grad_(False)

    def encode(self, x):
        return self.enc(x) * 0.18215

    def decode(self, z):
        return torch.tanh(self.dec(z / 0.18215))

    def features(self, x):
        return self.feat(x)


class LatentUNet(nn.Module):
    def __init__(self, zc, w):
        super().__init__()
        self.t = nn.Embedding(1000, w)
        self.a = nn.Conv2d(zc, w, 3, padding=1)
        self.b = nn.Conv2d(w, w, 3, padding=1)
        self.c = nn.Conv2d(w, zc, 3, padding=1)

    def forward(self, z, t):
        h = F.silu(self.a(z) + self.t(t)[:, :, None, None])
        h = F.silu(self.b(h)) + h
        return self.c(h)


class NoiseSchedule:
    def __init__(self, T, device):
        self.T = T
        betas = torch.linspace(0.00085 ** 0.5, 0.012 ** 0.5, T, device=device) ** 2
        self.ab = torch.cumprod(1 - betas, 0)

    def loss(self, net, z0):
        t = torch.randint(0, self.T, (z0.shape[0],), device=z0.device)
        eps = torch.randn_like(z0)
        a = self.ab[t].view(-1, 1, 1, 1)
        return F.mse_loss(net(a.sqrt() * z0 + (1 - a).sqrt() * eps, t), eps)

    @torch.no_grad()
    def sample(self, net, shape, steps=50):
        ts = torch.linspace(self.T - 1, 0, steps, device=self.ab.device).long()
        z = torch.randn(shape, device=self.ab.device)
        for i, t in enumerate(ts):
            a = self.ab[t]
            a_prev = self.ab[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0, device=z.device)
            eps = net(z, t.repeat(shape[0]))
            z0 = (z - (1 - a).sqrt() * eps) / a.sqrt()
            z = a_prev.sqrt() * z0 + (1 - a_prev).sqrt() * eps
        return z
