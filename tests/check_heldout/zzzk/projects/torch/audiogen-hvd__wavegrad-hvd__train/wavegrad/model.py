import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class NoiseLevelEncoding(nn.Module):
    def __init__(self, n_channels):
        super().__init__()
        self.n = n_channels

    def forward(self, x, noise_level):
        half = self.n // 2
        f = torch.exp(-math.log(10000.0) * torch.arange(half, device=x.device) / half)
        e = 5000.0 * noise_level[:, None] * f[None]
        return x + torch.cat([e.sin(), e.cos()], -1)[:, :, None]


class WaveGradLite(nn.Module):
    def __init__(self, params):
        super().__init__()
        c = params.residual_channels
        self.hop = params.hop_samples
        self.mel = nn.Conv1d(params.n_mels, c, 3, padding=1)
        self.inp = nn.Conv1d(1, c, 9, padding=4)
        self.enc = NoiseLevelEncoding(c)
        self.mid = nn.Conv1d(c, c, 3, padding=1)
        self.out = nn.Conv1d(c, 1, 3, padding=1)

    def forward(self, audio, spectrogram, noise_level):
        cond = F.interpolate(self.mel(spectrogram), scale_factor=self.hop, mode="nearest")
        h = self.enc(self.inp(audio.unsqueeze(1)), noise_level)
        h = F.leaky_relu(self.mid(h + cond), 0.2)
        return self.out(h).squeeze(1)
