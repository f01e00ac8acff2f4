import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm


class Chomp(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        return x[:, :, :-self.n].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, k, dilation, dropout=0.1):
        super().__init__()
        pad = (k - 1) * dilation
        self.net = nn.Sequential(
            weight_norm(nn.Conv1d(cin, cout, k, padding=pad, dilation=dilation)), Chomp(pad), nn.ReLU(), nn.Dropout(dropout),
            weight_norm(nn.Conv1d(cout, cout, k, padding=pad, dilation=dilation)), Chomp(pad), nn.ReLU(), nn.Dropout(dropout))
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x):
        return (self.net(x) + self.down(x)).relu()


class TCN(nn.Module):
    def __init__(self, n_series, channels=(32, 32, 32, 32), kernel=3, horizon=24):
        super().__init__()
        layers, cin = [], n_series
        for i, c in enumerate(channels):
            layers.append(TemporalBlock(cin, c, kernel, 2 ** i))
            cin = c
        self.tcn = nn.Sequential(*layers)
        self.head = nn.Linear(cin, n_series * horizon)
        self.n_series, self.horizon = n_series, horizon

    def forward(self, x):  # x: (B, T, S)
        h = self.tcn(x.transpose(1, 2))[:, :, -1]
        return self.head(h).view(-1, self.horizon, self.n_series)
