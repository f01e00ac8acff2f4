import torch
from torch import nn


def mlp(sizes, last_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, table_sizes, dim=64, bottom=(13, 256, 64), top=(512, 256, 1)):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum", sparse=True) for n in table_sizes)
        self.bottom = mlp(list(bottom[:-1]) + [dim])  # bottom output must match the embedding dim
        n_feat = len(table_sizes) + 1
        self.top = mlp([dim + n_feat * (n_feat - 1) // 2] + list(top), last_act=False)

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        embs = [t(sparse[:, i:i + 1]) for i, t in enumerate(self.tables)]
        feats = torch.stack([x] + embs, dim=1)
        inter = torch.bmm(feats, feats.transpose(1, 2))
        iu = torch.triu_indices(feats.size(1), feats.size(1), offset=1)
        z = torch.cat([x, inter[:, iu[0], iu[1]]], dim=1)
        return self.top(z).squeeze(1)
