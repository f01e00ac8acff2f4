import math

import torch
import torch.nn as nn


class DDPMSchedule:
    def __init__(self, steps=100):
        self.steps = steps
        betas = torch.linspace(1e-4, 0.02, steps)
        self.alpha_bar = torch.cumprod(1.0 - betas, 0)

    def add_noise(self, x0, noise, t):
        ab = self.alpha_bar.to(x0.device)[t].view(-1, 1, 1)
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], -1)


class NoisePredNet(nn.Module):
    def __init__(self, obs_dim, act_dim, pred_horizon, hidden=512):
        super().__init__()
        self.act_dim, self.ph = act_dim, pred_horizon
        self.t_dim = 64
        self.net = nn.Sequential(
            nn.Linear(obs_dim + act_dim * pred_horizon + self.t_dim, hidden), nn.Mish(),
            nn.Linear(hidden, hidden), nn.Mish(),
            nn.Linear(hidden, act_dim * pred_horizon))

    def forward(self, noisy_actions, t, obs):
        h = torch.cat([obs, noisy_actions.flatten(1), timestep_embedding(t, self.t_dim)], -1)
        return self.net(h).view(-1, self.ph, self.act_dim)
