import torch
from torch.utils.data import Subset


def epoch_shard(dataset, epoch, seed, rank, world):
    """Same permutation on every rank (seeded by epoch), cut into equal contiguous blocks."""
    g = torch.Generator().manual_seed(seed * 1000 + epoch)
    perm = torch.randperm(len(dataset), generator=g)
    per_rank = len(dataset) // world
    return Subset(dataset, perm[rank * per_rank:(rank + 1) * per_rank].tolist())


def strided_shard(dataset, rank, world):
    return Subset(dataset, list(range(rank, len(dataset), world)))
