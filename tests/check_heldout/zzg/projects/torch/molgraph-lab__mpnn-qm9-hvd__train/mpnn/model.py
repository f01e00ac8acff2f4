import torch
from torch import nn


class EdgeNetwork(nn.Module):
    def __init__(self, dim, edge_dim):
        super().__init__()
        self.msg = nn.Sequential(nn.Linear(2 * dim + edge_dim, dim), nn.SiLU(), nn.Linear(dim, dim))
        self.update = nn.GRUCell(dim, dim)

    def forward(self, h, edge_index, edge_attr):
        src, dst = edge_index
        m = self.msg(torch.cat([h[src], h[dst], edge_attr], dim=-1))
        agg = torch.zeros_like(h).index_add_(0, dst, m)
        return self.update(agg, h)


class MPNN(nn.Module):
    def __init__(self, node_dim, edge_dim, hidden=64, steps=3):
        super().__init__()
        self.embed = nn.Linear(node_dim, hidden)
        self.layers = nn.ModuleList(EdgeNetwork(hidden, edge_dim) for _ in range(steps))
        self.head = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, g):
        h = torch.relu(self.embed(g.x))
        for layer in self.layers:
            h = layer(h, g.edge_index, g.edge_attr)
        pooled = torch.zeros(g.num_graphs, h.size(1), device=h.device).index_add_(0, g.batch, h)
        return self.head(pooled)
