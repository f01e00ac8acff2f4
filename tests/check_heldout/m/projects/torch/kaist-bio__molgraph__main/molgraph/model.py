import torch
import torch.nn as nn


class MPLayer(nn.Module):
    def __init__(self, dim, n_bond_types):
        super().__init__()
        self.bond = nn.Embedding(n_bond_types, dim)
        self.msg = nn.Sequential(nn.Linear(2 * dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.upd = nn.GRUCell(dim, dim)

    def forward(self, h, edges, bonds):
        src, dst = edges
        m = self.msg(torch.cat([h[src], self.bond(bonds)], dim=-1))
        agg = torch.zeros_like(h).index_add_(0, dst, m)
        return self.upd(agg, h)


class MPNN(nn.Module):
    def __init__(self, n_atom_types=100, n_bond_types=5, dim=128, layers=4):
        super().__init__()
        self.atom = nn.Embedding(n_atom_types, dim)
        self.layers = nn.ModuleList(MPLayer(dim, n_bond_types) for _ in range(layers))
        self.readout = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, 1))

    def forward(self, atoms, edges, bonds, graph_idx, n_graphs):
        h = self.atom(atoms)
        for layer in self.layers:
            h = layer(h, edges, bonds)
        pooled = torch.zeros(n_graphs, h.size(1), device=h.device).index_add_(0, graph_idx, h)
        counts = torch.bincount(graph_idx, minlength=n_graphs).clamp(min=1).unsqueeze(1)
        return self.readout(pooled / counts).squeeze(1)
