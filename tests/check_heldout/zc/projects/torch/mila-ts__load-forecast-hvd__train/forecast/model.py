import torch
from torch import nn


class GRUForecaster(nn.Module):
    def __init__(self, n_zones, horizon, hidden=128, layers=2, dropout=0.1):
        super().__init__()
        self.horizon = horizon
        self.rnn = nn.GRU(n_zones, hidden, num_layers=layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden, n_zones * horizon)

    def forward(self, x):
        _, h = self.rnn(x)
        out = self.head(h[-1])
        return out.view(x.size(0), self.horizon, -1)
