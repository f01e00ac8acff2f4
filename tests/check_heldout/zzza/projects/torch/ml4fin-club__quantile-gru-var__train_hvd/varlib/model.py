import torch
from torch import nn


class QuantileGRU(nn.Module):
    def __init__(self, hidden, quantiles):
        super().__init__()
        self.register_buffer("q", torch.tensor(quantiles))
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, len(quantiles)))

    def forward(self, x):
        _, h = self.gru(x)
        out = self.head(h[-1])
        # keep quantiles ordered: cumulative softplus increments from the lowest one
        return torch.cat([out[:, :1], out[:, :1] + torch.cumsum(nn.functional.softplus(out[:, 1:]), 1)], 1)


def pinball(pred, y, q):
    d = y.unsqueeze(1) - pred
    return torch.maximum(q * d, (q - 1) * d).mean()


def breach_rate(pred, y):
    return (y.unsqueeze(1) < pred).float().mean(0)
