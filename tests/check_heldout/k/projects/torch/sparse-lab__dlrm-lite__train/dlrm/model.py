import torch
import torch.nn as nn


def mlp(sizes, final_act=True):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if final_act or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, n_dense, n_sparse, hash_size, dim=16, bottom=(64, 32), top=(128, 64)):
        super().__init__()
        self.emb = nn.ModuleList(nn.Embedding(hash_size, dim) for _ in range(n_sparse))
        self.bottom = mlp((n_dense,) + tuple(bottom) + (dim,))
        n_vec = n_sparse + 1
        self.top = mlp((dim + n_vec * (n_vec - 1) // 2,) + tuple(top) + (1,), final_act=False)
        self.hash_size = hash_size

    def forward(self, dense, sparse):
        d = self.bottom(dense)
        vecs = [d] + [e(sparse[:, i] % self.hash_size) for i, e in enumerate(self.emb)]
        t = torch.stack(vecs, 1)
        inter = torch.bmm(t, t.transpose(1, 2))
        iu, ju = torch.triu_indices(t.size(1), t.size(1), offset=1)
        return self.top(torch.cat([d, inter[:, iu, ju]], 1)).squeeze(1)
