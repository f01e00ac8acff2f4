import math

import torch


def linear_betas(T, start=1e-4, end=0.02):
    return torch.linspace(start, end, T)


def cosine_betas(T, s=0.008):
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    betas = 1 - f[1:] / f[:-1]
    return betas.clamp(max=0.999).float()


class NoiseSchedule(torch.nn.Module):
    def __init__(self, T=1000, kind="linear"):
        super().__init__()
        self.T = T
        betas = linear_betas(T) if kind == "linear" else cosine_betas(T)
        abar = torch.cumprod(1.0 - betas, dim=0)
        self.register_buffer("betas", betas)
        self.register_buffer("sqrt_abar", abar.sqrt())
        self.register_buffer("sqrt_1m_abar", (1.0 - abar).sqrt())

    def q_sample(self, x0, t, noise):
        a = self.sqrt_abar[t].view(-1, 1, 1, 1)
        b = self.sqrt_1m_abar[t].view(-1, 1, 1, 1)
        return a * x0 + b * noise
