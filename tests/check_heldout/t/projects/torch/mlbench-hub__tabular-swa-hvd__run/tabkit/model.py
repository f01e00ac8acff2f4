import torch.nn as nn


class ResMLP(nn.Module):
    def __init__(self, n_in, n_out, hidden=512, dropout=0.15):
        super().__init__()
        self.inp = nn.Linear(n_in, hidden)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout))
            for _ in range(3))
        self.out = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, n_out))

    def forward(self, x):
        h = self.inp(x)
        for b in self.blocks:
            h = h + b(h)
        return self.out(h)
