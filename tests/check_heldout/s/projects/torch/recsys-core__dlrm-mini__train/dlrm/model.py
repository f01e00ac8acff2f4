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
    def __init__(self, num_dense, table_sizes, emb_dim, bottom_mlp, top_mlp):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, emb_dim, mode="sum", sparse=True) for n in table_sizes)
        self.bottom = mlp([num_dense] + bottom_mlp)
        n_feat = len(table_sizes) + 1
        self.top = mlp([emb_dim + n_feat * (n_feat - 1) // 2] + top_mlp, last_act=False)

    def forward(self, dense, cat):
        x = self.bottom(dense)
        embs = [t(cat[:, i:i + 1]) for i, t in enumerate(self.tables)]
        feats = torch.stack([x] + embs, dim=1)
        inter = torch.bmm(feats, feats.transpose(1, 2))
        i, j = torch.triu_indices(feats.shape[1], feats.shape[1], offset=1)
        z = torch.cat([x, inter[:, i, j]], dim=1)
        return self.top(z).squeeze(1)

    def sparse_parameters(self):
        return list(self.tables.named_parameters(prefix="tables"))

    def dense_parameters(self):
        return [(n, p) for n, p in self.named_parameters() if not n.startswith("tables.")]
