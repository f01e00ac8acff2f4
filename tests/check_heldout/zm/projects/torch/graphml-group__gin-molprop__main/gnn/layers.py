import torch
from torch import nn


class GINConv(nn.Module):
    """h_v' = MLP((1 + eps) h_v + sum_{u in N(v)} h_u)"""

    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(in_dim, out_dim), nn.BatchNorm1d(out_dim),
                                 nn.ReLU(), nn.Linear(out_dim, out_dim))

    def forward(self, x, edge_index):
        src, dst = edge_index
        agg = torch.zeros_like(x).index_add_(0, dst, x[src])
        return self.mlp((1 + self.eps) * x + agg)


def global_add_pool(x, graph_id, num_graphs):
    out = x.new_zeros(int(num_graphs), x.size(1))
    return out.index_add_(0, graph_id, x)
