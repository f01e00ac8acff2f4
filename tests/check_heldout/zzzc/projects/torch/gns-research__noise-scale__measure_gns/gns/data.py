import torch
from torch.utils.data import Subset, TensorDataset


def random_images(n=4096, size=32, classes=10, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, size, size, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    return TensorDataset(x, y)


def rank_slice(dataset, rank, world):
    """Strided slice: rank r gets items r, r+world, ...; trimmed so every rank has the same count."""
    per_rank = len(dataset) // world
    return Subset(dataset, list(range(rank, per_rank * world, world)))
