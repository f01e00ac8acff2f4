import math
import torch
import torch.nn as nn


def radius_graph(pos, batch, cutoff):
    # O(N^2) per batch, fine for small molecules
    with torch.no_grad():
        same = batch[:, None] == batch[None, :]
        dist = torch.cdist(pos, pos)
        mask = same & (dist < cutoff)
        mask.fill_diagonal_(False)
    i, j = mask.nonzero(as_tuple=True)
    return i, j


class GaussianRBF(nn.Module):
    def __init__(self, n_rbf, cutoff):
        super().__init__()
        self.register_buffer("mu", torch.linspace(0, cutoff, n_rbf))
        self.gamma = 0.5 / (cutoff / n_rbf) ** 2
        self.cutoff = cutoff

    def forward(self, d):
        fcut = 0.5 * (torch.cos(d * math.pi / self.cutoff) + 1.0)
        return torch.exp(-self.gamma * (d[:, None] - self.mu) ** 2) * fcut[:, None]


class Interaction(nn.Module):
    def __init__(self, hidden, n_rbf):
        super().__init__()
        self.filt = nn.Sequential(nn.Linear(n_rbf, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.lin_in = nn.Linear(hidden, hidden, bias=False)
        self.lin_out = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, hidden))

    def forward(self, h, rbf, i, j):
        msg = self.lin_in(h)[j] * self.filt(rbf)
        agg = torch.zeros_like(h).index_add_(0, i, msg)
        return self.lin_out(agg)


class SchNet(nn.Module):
    def __init__(self, n_interactions=3, hidden=64, n_rbf=25, cutoff=5.0, max_z=100):
        super().__init__()
        self.cutoff = cutoff
        self.embedding = nn.Embedding(max_z, hidden)
        self.rbf = GaussianRBF(n_rbf, cutoff)
        self.interactions = nn.ModuleList([Interaction(hidden, n_rbf) for _ in range(n_interactions)])
        self.readout = nn.Sequential(nn.Linear(hidden, hidden // 2), nn.SiLU(), nn.Linear(hidden // 2, 1))

    def forward(self, z, pos, batch, n_mol):
        i, j = radius_graph(pos, batch, self.cutoff)
        d = (pos[i] - pos[j]).norm(dim=-1)
        rbf = self.rbf(d)
        h = self.embedding(z)
        for block in self.interactions:
            h = h + block(h, rbf, i, j)
        e_atom = self.readout(h).squeeze(-1)
        return torch.zeros(n_mol, device=pos.device, dtype=e_atom.dtype).index_add_(0, batch, e_atom)
