import torch
from torch import nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_ch=6, width=64, out_dim=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(in_ch, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2, dilation=1), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, out_dim, 3, padding=1), nn.AdaptiveAvgPool1d(1),
        )
        self.out_dim = out_dim

    def forward(self, x):
        return self.net(x).flatten(1)


class ContrastiveModel(nn.Module):
    def __init__(self, encoder: Encoder, proj_dim=64):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Sequential(nn.Linear(encoder.out_dim, encoder.out_dim), nn.ReLU(),
                                  nn.Linear(encoder.out_dim, proj_dim))

    def forward(self, x):
        return F.normalize(self.head(self.encoder(x)), dim=1)


def nt_xent(z1, z2, temperature=0.2):
    z = torch.cat([z1, z2])
    sim = z @ z.t() / temperature
    sim.fill_diagonal_(-1e9)
    n = z1.size(0)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return F.cross_entropy(sim, targets)
