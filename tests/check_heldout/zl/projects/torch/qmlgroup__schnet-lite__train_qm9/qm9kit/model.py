import torch
from torch import nn


class RBF(nn.Module):
    def __init__(self, n=50, cutoff=5.0):
        super().__init__()
        self.register_buffer("mu", torch.linspace(0, cutoff, n))
        self.gamma = 10.0 / cutoff

    def forward(self, d):
        return torch.exp(-self.gamma * (d.unsqueeze(-1) - self.mu) ** 2)


class Interaction(nn.Module):
    def __init__(self, hidden, n_rbf):
        super().__init__()
        self.filt = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.out = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))

    def forward(self, h, rbf, mask):
        w = self.filt(rbf) * mask.unsqueeze(-1)              # (B, A, A, H)
        msg = torch.einsum("bijh,bjh->bih", w, h)
        return h + self.out(msg)


class SchNetLite(nn.Module):
    def __init__(self, hidden=128, n_interactions=3, cutoff=5.0, n_rbf=50):
        super().__init__()
        self.embed = nn.Embedding(10, hidden, padding_idx=0)
        self.rbf = RBF(n_rbf, cutoff)
        self.blocks = nn.ModuleList(Interaction(hidden, n_rbf) for _ in range(n_interactions))
        self.head = nn.Sequential(nn.Linear(hidden, hidden // 2), nn.SiLU(), nn.Linear(hidden // 2, 1))
        self.cutoff = cutoff

    def forward(self, z, pos):
        atom = (z > 0).float()
        d = torch.cdist(pos, pos)
        mask = (d < self.cutoff).float() * atom.unsqueeze(1) * atom.unsqueeze(2)
        h = self.embed(z.clamp(max=9))
        for blk in self.blocks:
            h = blk(h, self.rbf(d), mask)
        return (self.head(h) * atom.unsqueeze(-1)).sum(1)
