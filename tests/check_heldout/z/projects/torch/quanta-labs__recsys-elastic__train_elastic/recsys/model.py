import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoTower(nn.Module):
    def __init__(self, n_users, n_items, dim=64):
        super().__init__()
        self.user = nn.Embedding(n_users, dim)
        self.item = nn.Embedding(n_items, dim)
        self.user_mlp = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        nn.init.normal_(self.user.weight, std=0.05)
        nn.init.normal_(self.item.weight, std=0.05)

    def encode_users(self, u):
        return F.normalize(self.user_mlp(self.user(u)), dim=-1)

    def encode_items(self, i):
        return F.normalize(self.item(i), dim=-1)

    def forward(self, u, pos, neg):
        eu = self.encode_users(u)
        return (eu * self.encode_items(pos)).sum(-1), (eu * self.encode_items(neg)).sum(-1)


def bpr_loss(pos_score, neg_score):
    return -F.logsigmoid((pos_score - neg_score) * 10.0).mean()


@torch.no_grad()
def recall_at_k(model, val_pairs, n_items, k=20, device="cpu", chunk=512):
    model.eval()
    items = model.encode_items(torch.arange(n_items, device=device))
    hits = 0
    for s in range(0, len(val_pairs), chunk):
        block = torch.as_tensor(val_pairs[s:s + chunk], device=device)
        scores = model.encode_users(block[:, 0]) @ items.T
        topk = scores.topk(min(k, n_items), dim=1).indices
        hits += (topk == block[:, 1:2]).any(dim=1).sum().item()
    model.train()
    return hits / max(len(val_pairs), 1)
