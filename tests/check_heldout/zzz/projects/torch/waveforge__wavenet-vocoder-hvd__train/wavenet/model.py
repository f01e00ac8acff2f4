import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def mu_law_encode(x, q=256):
    mu = q - 1
    y = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / math.log1p(mu)
    return ((y + 1) / 2 * mu + 0.5).long().clamp(0, mu)


def mu_law_decode(idx, q=256):
    mu = q - 1
    y = 2 * idx.float() / mu - 1
    return torch.sign(y) * ((1 + mu) ** torch.abs(y) - 1) / mu


class ResidualLayer(nn.Module):
    def __init__(self, res, skip, cond, dilation):
        super().__init__()
        self.dilation = dilation
        self.conv = nn.Conv1d(res, 2 * res, 2, dilation=dilation)
        self.cond = nn.Conv1d(cond, 2 * res, 1)
        self.res_out = nn.Conv1d(res, res, 1)
        self.skip_out = nn.Conv1d(res, skip, 1)

    def forward(self, x, c):
        h = self.conv(F.pad(x, (self.dilation, 0)))  # causal
        h = h + self.cond(c)
        a, b = h.chunk(2, dim=1)
        h = torch.tanh(a) * torch.sigmoid(b)
        return x + self.res_out(h), self.skip_out(h)


class WaveNet(nn.Module):
    def __init__(self, n_mels=80, hop=256, q=256, res=64, skip=128, layers=20, cycle=10):
        super().__init__()
        self.hop = hop
        self.embed = nn.Conv1d(q, res, 1)
        self.upsample = nn.ConvTranspose1d(n_mels, n_mels, 2 * hop, stride=hop, padding=hop // 2)
        self.layers = nn.ModuleList(
            [ResidualLayer(res, skip, n_mels, 2 ** (i % cycle)) for i in range(layers)])
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, skip, 1), nn.ReLU(), nn.Conv1d(skip, q, 1))
        self.q = q

    def forward(self, wav_idx, mel):
        x = F.one_hot(wav_idx, self.q).transpose(1, 2).float()
        c = self.upsample(mel)[:, :, : x.size(-1)]
        x = self.embed(x)
        skips = 0
        for layer in self.layers:
            x, s = layer(x, c)
            skips = skips + s
        return self.out(skips)
