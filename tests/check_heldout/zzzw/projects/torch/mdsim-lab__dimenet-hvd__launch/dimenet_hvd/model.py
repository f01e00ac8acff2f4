import math
import torch
import torch.nn as nn


def radius_edges(pos, batch, cutoff):
    with torch.no_grad():
        adj = (batch[:, None] == batch[None, :]) & (torch.cdist(pos, pos) <= cutoff)
        adj.fill_diagonal_(False)
    src, dst = adj.nonzero(as_tuple=True)
    return src, dst


class Envelope(nn.Module):
    def __init__(self, p=6):
        super().__init__()
        self.p = p

    def forward(self, x):
        p = self.p
        a, b, c = -(p + 1) * (p + 2) / 2, p * (p + 2), -p * (p + 1) / 2
        return 1 / x + a * x ** (p - 1) + b * x ** p + c * x ** (p + 1)


class DimeNetLite(nn.Module):
    """edge-message model in the spirit of DimeNet (no angular triplets, radial Bessel basis)"""

    def __init__(self, emb=128, blocks=4, n_radial=6, cutoff=5.0):
        super().__init__()
        self.cutoff = cutoff
        self.freq = nn.Parameter(torch.arange(1, n_radial + 1).float() * math.pi)
        self.env = Envelope()
        self.atom_emb = nn.Embedding(95, emb)
        self.edge_in = nn.Linear(3 * emb, emb)
        self.rbf_proj = nn.ModuleList([nn.Linear(n_radial, emb, bias=False) for _ in range(blocks)])
        self.edge_mlp = nn.ModuleList([nn.Sequential(nn.Linear(emb, emb), nn.SiLU(), nn.Linear(emb, emb))
                                       for _ in range(blocks)])
        self.out = nn.Sequential(nn.Linear(emb, emb), nn.SiLU(), nn.Linear(emb, 1, bias=False))

    def forward(self, z, pos, batch, n_mol):
        src, dst = radius_edges(pos, batch, self.cutoff)
        d = (pos[src] - pos[dst]).norm(dim=-1) / self.cutoff
        rbf = self.env(d)[:, None] * torch.sin(self.freq * d[:, None])
        h = self.atom_emb(z)
        m = torch.nn.functional.silu(self.edge_in(torch.cat([h[src], h[dst], self.rbf_proj[0](rbf)], -1)))
        for proj, mlp in zip(self.rbf_proj, self.edge_mlp):
            m = m + mlp(m * proj(rbf))
        node = torch.zeros(len(z), m.shape[-1], device=pos.device, dtype=m.dtype).index_add_(0, dst, m)
        e = self.out(node).squeeze(-1)
        return torch.zeros(n_mol, device=pos.device, dtype=e.dtype).index_add_(0, batch, e)
