import torch
import torch.nn as nn
import torch.nn.functional as F


class Tower(nn.Module):
    def __init__(self, n, dim):
        super().__init__()
        self.emb = nn.Embedding(n, dim, sparse=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, idx):
        return F.normalize(self.mlp(self.emb(idx)), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, num_users, num_items, dim):
        super().__init__()
        self.user = Tower(num_users, dim)
        self.item = Tower(num_items, dim)

    def forward(self, users, items):
        return self.user(users), self.item(items)


def in_batch_softmax_loss(u, v, temperature):
    logits = u @ v.t() / temperature
    return F.cross_entropy(logits, torch.arange(len(u), device=u.device))
