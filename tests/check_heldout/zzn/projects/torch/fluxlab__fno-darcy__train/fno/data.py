import numpy as np
import torch


def load_darcy(path, ntrain, ntest, sub=1):
    """darcy_*.npz holds `coeff` (N, H, W) and `sol` (N, H, W); the first ntrain are training samples."""
    with np.load(path) as f:
        a = torch.from_numpy(f["coeff"][:, ::sub, ::sub].astype(np.float32))
        u = torch.from_numpy(f["sol"][:, ::sub, ::sub].astype(np.float32))
    return a[:ntrain], u[:ntrain], a[-ntest:], u[-ntest:]


class UnitGaussianNormalizer:
    """Point-wise mean/std computed over the training samples."""

    def __init__(self, x, eps=1e-5):
        self.mean = x.mean(0)
        self.std = x.std(0)
        self.eps = eps

    def encode(self, x):
        return (x - self.mean) / (self.std + self.eps)

    def decode(self, x):
        return x * (self.std + self.eps) + self.mean

    def to(self, device):
        self.mean, self.std = self.mean.to(device), self.std.to(device)
        return self


def rank_indices(n, rank, world, seed=0):
    """Same permutation on every worker, then a strided slice; truncated so every worker
    gets the same number of samples."""
    perm = np.random.RandomState(seed).permutation(n)
    per_rank = n // world
    return torch.from_numpy(perm[rank::world][:per_rank].copy())
