"""A cut-down PaiNN (scalar + vector features, equivariant message passing)."""
import math
import torch
from torch import nn


def neighbour_list(pos, idx, rc):
    with torch.no_grad():
        dmat = torch.cdist(pos, pos)
        m = (idx[:, None] == idx[None, :]) & (dmat < rc)
        m &= ~torch.eye(len(pos), dtype=torch.bool, device=pos.device)
    return m.nonzero(as_tuple=True)


def sinc_basis(r, n, rc):
    k = torch.arange(1, n + 1, device=r.device, dtype=r.dtype)
    return torch.sin(k * math.pi * r[:, None] / rc) / r[:, None]


def cosine_cutoff(r, rc):
    return 0.5 * (torch.cos(math.pi * r / rc) + 1.0) * (r < rc).to(r.dtype)


class Message(nn.Module):
    def __init__(self, F, n_rbf):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(F, F), nn.SiLU(), nn.Linear(F, 3 * F))
        self.W = nn.Linear(n_rbf, 3 * F)
        self.F = F

    def forward(self, s, v, i, j, rbf, fc, unit):
        x = self.phi(s)[j] * self.W(rbf) * fc[:, None]
        ds, dvv, dvs = torch.split(x, self.F, dim=-1)
        dv = v[j] * dvv[:, None, :] + dvs[:, None, :] * unit[:, :, None]
        s = s + torch.zeros_like(s).index_add_(0, i, ds)
        v = v + torch.zeros_like(v).index_add_(0, i, dv)
        return s, v


class Update(nn.Module):
    def __init__(self, F):
        super().__init__()
        self.U = nn.Linear(F, F, bias=False)
        self.V = nn.Linear(F, F, bias=False)
        self.mlp = nn.Sequential(nn.Linear(2 * F, F), nn.SiLU(), nn.Linear(F, 3 * F))
        self.F = F

    def forward(self, s, v):
        Uv, Vv = self.U(v), self.V(v)
        vnorm = torch.sqrt((Vv ** 2).sum(1) + 1e-8)
        a = self.mlp(torch.cat([s, vnorm], -1))
        avv, asv, ass = torch.split(a, self.F, -1)
        v = v + avv[:, None, :] * Uv
        s = s + asv * (Uv * Vv).sum(1) + ass
        return s, v


class PaiNN(nn.Module):
    def __init__(self, hidden=128, n_layers=3, n_rbf=20, cutoff=5.0):
        super().__init__()
        self.rc, self.n_rbf, self.F = cutoff, n_rbf, hidden
        self.emb = nn.Embedding(100, hidden)
        self.msgs = nn.ModuleList([Message(hidden, n_rbf) for _ in range(n_layers)])
        self.upds = nn.ModuleList([Update(hidden) for _ in range(n_layers)])
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, z, pos, idx, n_graphs):
        i, j = neighbour_list(pos, idx, self.rc)
        rij = pos[j] - pos[i]
        r = rij.norm(dim=-1)
        unit = rij / r[:, None]
        rbf, fc = sinc_basis(r, self.n_rbf, self.rc), cosine_cutoff(r, self.rc)
        s = self.emb(z)
        v = torch.zeros(len(z), 3, self.F, device=pos.device, dtype=pos.dtype)
        for m, u in zip(self.msgs, self.upds):
            s, v = m(s, v, i, j, rbf, fc, unit)
            s, v = u(s, v)
        e = self.head(s).squeeze(-1)
        return torch.zeros(n_graphs, device=pos.device, dtype=e.dtype).index_add_(0, idx, e)
