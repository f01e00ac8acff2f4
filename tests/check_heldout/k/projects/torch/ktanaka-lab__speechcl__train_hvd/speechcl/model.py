import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvSubsample(nn.Module):
    def __init__(self, n_mels, dim):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(n_mels, dim, 5, stride=2, padding=2), nn.GELU(),
            nn.Conv1d(dim, dim, 5, stride=2, padding=2), nn.GELU())

    def forward(self, x):  # [B, T, F]
        return self.conv(x.transpose(1, 2)).transpose(1, 2)


class SpeechEncoder(nn.Module):
    def __init__(self, n_mels=80, dim=256, layers=6, heads=4, proj_dim=128):
        super().__init__()
        self.subsample = ConvSubsample(n_mels, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, dim * 4, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.proj = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, proj_dim))

    def forward(self, x):
        h = self.encoder(self.subsample(x)).mean(1)
        return F.normalize(self.proj(h), dim=-1)


def nt_xent(z1, z2, temperature=0.1):
    z = torch.cat([z1, z2], 0)
    sim = z @ z.t() / temperature
    n = z1.size(0)
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)
