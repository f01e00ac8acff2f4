import torch
import torch.nn as nn


class CrossNet(nn.Module):
    def __init__(self, dim, layers=2):
        super().__init__()
        self.w = nn.ModuleList(nn.Linear(dim, 1, bias=False) for _ in range(layers))
        self.b = nn.ParameterList(nn.Parameter(torch.zeros(dim)) for _ in range(layers))

    def forward(self, x0):
        x = x0
        for w, b in zip(self.w, self.b):
            x = x0 * w(x) + b + x
        return x


class DCN(nn.Module):
    def __init__(self, num_dense, num_sparse, num_buckets, embed_dim):
        super().__init__()
        self.embed = nn.Embedding(num_buckets, embed_dim, sparse=True)
        dim = num_dense + num_sparse * embed_dim
        self.cross = CrossNet(dim)
        self.deep = nn.Sequential(nn.Linear(dim, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(dim + 64, 1)

    def forward(self, dense, sparse):
        x0 = torch.cat([dense, self.embed(sparse).flatten(1)], dim=1)
        return self.head(torch.cat([self.cross(x0), self.deep(x0)], dim=1)).squeeze(1)
