import math
import torch
import torch.nn as nn


class GaussLayer(nn.Module):
    def __init__(self, d_in, d_h, d_out):
        super().__init__()
        self.h = nn.Sequential(nn.Linear(d_in, d_h), nn.Tanh(), nn.Linear(d_h, d_h), nn.Tanh())
        self.mu = nn.Linear(d_h, d_out)
        self.logstd = nn.Linear(d_h, d_out)

    def forward(self, x):
        h = self.h(x)
        return self.mu(h), self.logstd(h)


def log_gauss(x, mu, logstd):
    return (-0.5 * ((x - mu) / logstd.exp()) ** 2 - logstd - 0.5 * math.log(2 * math.pi)).sum(-1)


class IWAE(nn.Module):
    def __init__(self, z=50, h=200):
        super().__init__()
        self.enc = GaussLayer(784, h, z)
        self.dec = nn.Sequential(nn.Linear(z, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 784))
        self.register_buffer("train_mean", torch.full((784,), 0.5))

    def log_weights(self, x, k):
        mu, logstd = self.enc(x - self.train_mean)
        eps = torch.randn(k, *mu.shape, device=x.device)
        z = mu + eps * logstd.exp()
        logits = self.dec(z)
        lpx = -nn.functional.binary_cross_entropy_with_logits(logits, x.expand_as(logits), reduction="none").sum(-1)
        lpz = log_gauss(z, torch.zeros_like(z), torch.zeros_like(z))
        lqz = log_gauss(z, mu, logstd)
        return lpx + lpz - lqz  # (k, B)
