import torch
import torch.nn as nn

from .data import NODE_FEATS, EDGE_FEATS


def segment_sum(src, index, n):
    out = src.new_zeros((n,) + src.shape[1:])
    return out.index_add_(0, index, src)


class EdgeNetwork(nn.Module):
    """NNConv-style message: m_ij = A(e_ij) h_j"""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.edge_mlp = nn.Sequential(nn.Linear(EDGE_FEATS, 64), nn.ReLU(), nn.Linear(64, dim * dim))

    def forward(self, h, edge_index, edge_attr):
        src, dst = edge_index
        A = self.edge_mlp(edge_attr).view(-1, self.dim, self.dim)
        msg = torch.bmm(A, h[src].unsqueeze(-1)).squeeze(-1)
        return segment_sum(msg, dst, h.size(0))


class MPNN(nn.Module):
    def __init__(self, hidden=128, n_layers=3):
        super().__init__()
        self.embed = nn.Linear(NODE_FEATS, hidden)
        self.convs = nn.ModuleList([EdgeNetwork(hidden) for _ in range(n_layers)])
        self.gru = nn.GRUCell(hidden, hidden)
        self.readout = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, b):
        h = torch.relu(self.embed(b["x"]))
        for conv in self.convs:
            m = conv(h, b["edge_index"], b["edge_attr"])
            h = self.gru(m, h)
        hg = segment_sum(h, b["batch"], b["num_graphs"])
        return self.readout(hg).squeeze(-1)
