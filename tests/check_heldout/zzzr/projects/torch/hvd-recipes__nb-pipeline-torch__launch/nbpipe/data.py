import torch
from torch.utils.data import TensorDataset, Subset, DataLoader


def synthetic(n, d, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g)
    w = torch.randn(d, generator=g)
    y = (X @ w > 0).long()
    return TensorDataset(X, y)


def shard_loader(ds, rank, size, batch_size, shuffle):
    # take every size-th example starting at rank (what we did by hand in the notebook)
    part = Subset(ds, list(range(rank, len(ds), size)))
    return DataLoader(part, batch_size=batch_size, shuffle=shuffle, drop_last=shuffle)
