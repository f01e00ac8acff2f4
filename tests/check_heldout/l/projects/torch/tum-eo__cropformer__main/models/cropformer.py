import math

import torch
import torch.nn as nn


class DayOfYearEncoding(nn.Module):
    """Sinusoidal encoding of the acquisition day (irregular time series)."""

    def __init__(self, d_model, period=366.0):
        super().__init__()
        freqs = torch.exp(torch.arange(0, d_model, 2) * (-math.log(1000.0) / d_model))
        self.register_buffer("freqs", freqs)
        self.period = period

    def forward(self, doy):
        angles = doy.unsqueeze(-1).float() / self.period * 2 * math.pi * self.freqs * self.period / 2
        return torch.cat([angles.sin(), angles.cos()], dim=-1)


class CropFormer(nn.Module):
    def __init__(self, in_channels, num_classes, d_model=128, depth=4, heads=4, dropout=0.1):
        super().__init__()
        self.inp = nn.Sequential(nn.Linear(in_channels, d_model), nn.LayerNorm(d_model))
        self.time = DayOfYearEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d_model))
        self.head = nn.Sequential(nn.LayerNorm(d_model), nn.Linear(d_model, num_classes))
        nn.init.trunc_normal_(self.cls_token, std=0.02)

    def forward(self, x, doy, mask):
        # x: (B, T, C) reflectances, doy: (B, T), mask: (B, T) True where padded
        h = self.inp(x) + self.time(doy)
        cls = self.cls_token.expand(h.shape[0], -1, -1)
        h = torch.cat([cls, h], dim=1)
        pad = torch.cat([torch.zeros_like(mask[:, :1]), mask], dim=1)
        h = self.encoder(h, src_key_padding_mask=pad)
        return self.head(h[:, 0])
