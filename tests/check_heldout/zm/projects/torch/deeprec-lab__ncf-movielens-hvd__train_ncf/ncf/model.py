import torch
from torch import nn


class NeuMF(nn.Module):
    def __init__(self, num_users, num_items, factors, layers):
        super().__init__()
        self.gmf_u = nn.Embedding(num_users, factors)
        self.gmf_i = nn.Embedding(num_items, factors)
        self.mlp_u = nn.Embedding(num_users, layers[0] // 2)
        self.mlp_i = nn.Embedding(num_items, layers[0] // 2)
        mlp = []
        for a, b in zip(layers[:-1], layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(factors + layers[-1], 1)
        for emb in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(emb.weight, std=0.01)

    def forward(self, u, i):
        gmf = self.gmf_u(u) * self.gmf_i(i)
        mlp = self.mlp(torch.cat([self.mlp_u(u), self.mlp_i(i)], dim=-1))
        return self.out(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)
