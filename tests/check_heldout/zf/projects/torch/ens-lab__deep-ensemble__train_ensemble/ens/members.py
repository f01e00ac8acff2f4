import torch
import torch.nn as nn


class Member(nn.Module):
    def __init__(self, d_in, d_out, hidden=256, p_drop=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Dropout(p_drop),
                                 nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


class Ensemble(nn.Module):
    def __init__(self, k, d_in, d_out, **kw):
        super().__init__()
        self.members = nn.ModuleList(Member(d_in, d_out, **kw) for _ in range(k))

    def forward(self, x):
        # mean of member probabilities
        return torch.stack([m(x).softmax(-1) for m in self.members]).mean(0)
