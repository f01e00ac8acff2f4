import math

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=1)


class ResBlock(nn.Module):
    def __init__(self, ch, tdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, ch), nn.Conv2d(ch, ch, 3, padding=1)
        self.t = nn.Linear(tdim, ch)
        self.n2, self.c2 = nn.GroupNorm(8, ch), nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x, temb):
        h = self.c1(torch.nn.functional.silu(self.n1(x))) + self.t(temb)[:, :, None, None]
        return x + self.c2(torch.nn.functional.silu(self.n2(h)))


class TinyUNet(nn.Module):
    def __init__(self, ch=64, depth=4, grad_ckpt=True):
        super().__init__()
        self.ch, self.grad_ckpt = ch, grad_ckpt
        self.inp = nn.Conv2d(3, ch, 3, padding=1)
        self.temb = nn.Sequential(nn.Linear(ch, 4 * ch), nn.SiLU(), nn.Linear(4 * ch, 4 * ch))
        self.blocks = nn.ModuleList(ResBlock(ch, 4 * ch) for _ in range(depth))
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))

    def forward(self, x, t):
        temb = self.temb(timestep_embedding(t, self.ch))
        h = self.inp(x)
        for blk in self.blocks:
            h = checkpoint(blk, h, temb, use_reentrant=False) if self.grad_ckpt and self.training else blk(h, temb)
        return self.out(h)
