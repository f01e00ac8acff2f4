import torch
import torch.nn as nn


class TwoTower(nn.Module):
    def __init__(self, n_users, n_items, dim):
        super().__init__()
        self.user_emb = nn.Embedding(n_users, dim, sparse=True)
        self.item_emb = nn.Embedding(n_items, dim, sparse=True)
        self.user_mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.item_mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, users, items):
        u = self.user_mlp(self.user_emb(users))
        v = self.item_mlp(self.item_emb(items))
        return u @ v.t()  # in-batch negatives

    def dense_named_parameters(self):
        return [(n, p) for n, p in self.named_parameters() if not n.endswith("_emb.weight")]

    def sparse_parameters(self):
        return [self.user_emb.weight, self.item_emb.weight]
