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
    def __init__(self, num_dense, cardinalities, emb_dim, bottom, top):
        super().__init__()
        assert bottom[-1] == emb_dim, "bottom MLP must end in emb_dim"
        self.bottom = mlp([num_dense] + bottom)
        self.tables = nn.ModuleList(nn.Embedding(n, emb_dim) for n in cardinalities)
        n_vec = len(cardinalities) + 1
        n_inter = n_vec * (n_vec - 1) // 2
        self.top = mlp([emb_dim + n_inter] + top, last_act=False)
        self._iu = torch.triu_indices(n_vec, n_vec, offset=1)

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        embs = [t(sparse[:, i]) for i, t in enumerate(self.tables)]
        feats = torch.stack([x] + embs, dim=1)              # B x F x D
        inter = torch.bmm(feats, feats.transpose(1, 2))      # B x F x F
        inter = inter[:, self._iu[0], self._iu[1]]
        return self.top(torch.cat([x, inter], dim=1))
