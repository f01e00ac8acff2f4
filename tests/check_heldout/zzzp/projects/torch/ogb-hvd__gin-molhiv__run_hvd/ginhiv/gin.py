import torch
import torch.nn as nn

from .datasets import ATOM_FEATS


class AtomEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(32, dim) for _ in range(ATOM_FEATS)])

    def forward(self, x):
        return sum(e(x[..., k]) for k, e in enumerate(self.embs))


class GINLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.BatchNorm1d(2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, h, adj, mask):
        agg = torch.bmm(adj, h)
        out = (1 + self.eps) * h + agg
        B, N, D = out.shape
        out = self.mlp(out.view(B * N, D)).view(B, N, D)
        return out * mask.unsqueeze(-1)


class GIN(nn.Module):
    def __init__(self, emb_dim=300, num_layers=5, drop_ratio=0.5):
        super().__init__()
        self.enc = AtomEncoder(emb_dim)
        self.layers = nn.ModuleList([GINLayer(emb_dim) for _ in range(num_layers)])
        self.drop = nn.Dropout(drop_ratio)
        self.head = nn.Linear(emb_dim, 1)

    def forward(self, x, adj, mask):
        h = self.enc(x) * mask.unsqueeze(-1)
        for layer in self.layers:
            h = self.drop(torch.relu(layer(h, adj, mask)))
        hg = h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return self.head(hg)
