"""Planted-partition graph with noisy class features (stand-in for ogbn-style datasets)."""
from dataclasses import dataclass

import torch


@dataclass
class Graph:
    x: torch.Tensor
    y: torch.Tensor
    indptr: torch.Tensor
    indices: torch.Tensor
    train_idx: torch.Tensor
    val_idx: torch.Tensor
    test_idx: torch.Tensor

    @property
    def num_nodes(self):
        return self.x.size(0)


def planted_graph(n=4000, n_classes=8, feat=32, p_in=0.01, p_out=0.001, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, n_classes, (n,), generator=g)
    same = y[:, None] == y[None, :]
    prob = torch.where(same, torch.tensor(p_in), torch.tensor(p_out))
    adj = torch.rand(n, n, generator=g) < prob
    adj = adj | adj.t()
    adj.fill_diagonal_(False)
    src, dst = adj.nonzero(as_tuple=True)
    indptr = torch.zeros(n + 1, dtype=torch.long)
    indptr[1:] = torch.cumsum(torch.bincount(src, minlength=n), 0)
    x = torch.randn(n, feat, generator=g) + torch.nn.functional.one_hot(y, feat).float() * 2.0
    perm = torch.randperm(n, generator=g)
    a, b = int(0.6 * n), int(0.8 * n)
    return Graph(x, y, indptr, dst, perm[:a], perm[a:b], perm[b:])
