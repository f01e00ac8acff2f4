import math

import torch
import torch.nn as nn


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / half)
    args = t.float()[:, None] * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=1)


class Block(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.norm = nn.GroupNorm(8, cout)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, temb):
        h = torch.relu(self.conv1(x)) + self.temb(temb)[:, :, None, None]
        h = torch.relu(self.norm(self.conv2(h)))
        return h + self.skip(x)


class TinyUNet(nn.Module):
    def __init__(self, ch=64, tdim=128):
        super().__init__()
        self.tdim = tdim
        self.tmlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.inc = nn.Conv2d(3, ch, 3, padding=1)
        self.down1 = Block(ch, ch, tdim)
        self.down2 = Block(ch, ch * 2, tdim)
        self.mid = Block(ch * 2, ch * 2, tdim)
        self.up2 = Block(ch * 4, ch, tdim)
        self.up1 = Block(ch * 2, ch, tdim)
        self.out = nn.Conv2d(ch, 3, 3, padding=1)
        self.pool = nn.AvgPool2d(2)
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")

    def forward(self, x, t):
        temb = self.tmlp(timestep_embedding(t, self.tdim))
        h0 = self.down1(self.inc(x), temb)
        h1 = self.down2(self.pool(h0), temb)
        m = self.mid(self.pool(h1), temb)
        u2 = self.up2(torch.cat([self.upsample(m), h1], 1), temb)
        u1 = self.up1(torch.cat([self.upsample(u2), h0], 1), temb)
        return self.out(u1)
