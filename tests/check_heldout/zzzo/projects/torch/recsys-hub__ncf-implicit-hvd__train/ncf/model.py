import torch
import torch.nn as nn


class NeuMF(nn.Module):
    def __init__(self, n_users, n_items, mf_dim=64, mlp_layers=(256, 128, 64)):
        super().__init__()
        self.mf_user = nn.Embedding(n_users, mf_dim, sparse=True)
        self.mf_item = nn.Embedding(n_items, mf_dim, sparse=True)
        self.mlp_user = nn.Embedding(n_users, mlp_layers[0] // 2, sparse=True)
        self.mlp_item = nn.Embedding(n_items, mlp_layers[0] // 2, sparse=True)
        for e in (self.mf_user, self.mf_item, self.mlp_user, self.mlp_item):
            nn.init.normal_(e.weight, std=0.01)
        mlp = []
        for a, b in zip(mlp_layers[:-1], mlp_layers[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        self.mlp = nn.Sequential(*mlp)
        self.final = nn.Linear(mf_dim + mlp_layers[-1], 1)

    def forward(self, u, i):
        mf = self.mf_user(u) * self.mf_item(i)
        h = self.mlp(torch.cat([self.mlp_user(u), self.mlp_item(i)], -1))
        return self.final(torch.cat([mf, h], -1)).squeeze(-1)

    def embedding_named_parameters(self):
        return [(n, p) for n, p in self.named_parameters() if n.endswith(("_user.weight", "_item.weight"))]

    def dense_named_parameters(self):
        emb = {n for n, _ in self.embedding_named_parameters()}
        return [(n, p) for n, p in self.named_parameters() if n not in emb]
