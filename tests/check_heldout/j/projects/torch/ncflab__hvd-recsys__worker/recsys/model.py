import torch
from torch import nn


class NeuMF(nn.Module):
    def __init__(self, num_users, num_items, factors=32, mlp_layers=(128, 64, 32)):
        super().__init__()
        self.gmf_u = nn.Embedding(num_users, factors)
        self.gmf_i = nn.Embedding(num_items, factors)
        self.mlp_u = nn.Embedding(num_users, mlp_layers[0] // 2)
        self.mlp_i = nn.Embedding(num_items, mlp_layers[0] // 2)
        mlp = []
        for a, b in zip(mlp_layers[:-1], mlp_layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.out = nn.Linear(factors + mlp_layers[-1], 1)
        for emb in (self.gmf_u, self.gmf_i, self.mlp_u, self.mlp_i):
            nn.init.normal_(emb.weight, std=0.01)

    def forward(self, users, items):
        gmf = self.gmf_u(users) * self.gmf_i(items)
        mlp = self.mlp(torch.cat([self.mlp_u(users), self.mlp_i(items)], dim=-1))
        return self.out(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)
