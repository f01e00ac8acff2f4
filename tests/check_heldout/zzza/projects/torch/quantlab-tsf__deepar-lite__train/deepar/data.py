import numpy as np
import torch
from torch.utils.data import Dataset


def load_series(path=None, length=20000, seed=0):
    """Load a 1-D series from .npy, or make a synthetic daily-seasonal one."""
    if path is not None:
        return np.load(path).astype(np.float32)
    rng = np.random.default_rng(seed)
    t = np.arange(length, dtype=np.float32)
    y = 10 + 2 * np.sin(2 * np.pi * t / 24) + 0.5 * np.sin(2 * np.pi * t / 168)
    return (y + rng.normal(0, 0.3, size=length)).astype(np.float32)


def split_by_fraction(series, val_frac=0.2):
    cut = int(len(series) * (1 - val_frac))
    return series[:cut], series[cut:]


class Scaler:
    """Mean/std scaler fitted on the training window only."""

    def fit(self, x):
        self.mu = float(x.mean())
        self.sd = float(x.std() + 1e-6)
        return self

    def transform(self, x):
        return (x - self.mu) / self.sd

    def inverse(self, x):
        return x * self.sd + self.mu


class WindowDataset(Dataset):
    def __init__(self, series, context, horizon, stride=1):
        self.x = torch.from_numpy(series)
        self.context, self.horizon = context, horizon
        self.starts = np.arange(0, len(series) - context - horizon + 1, stride)

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = int(self.starts[i])
        c, h = self.context, self.horizon
        return self.x[s:s + c].unsqueeze(-1), self.x[s + c:s + c + h]


def rank_indices(n, rank, world, epoch=0, seed=0):
    """Equal-length interleaved slice of a shared permutation for this worker."""
    g = np.random.default_rng(seed + epoch)
    perm = g.permutation(n)
    per_worker = n // world
    return perm[rank::world][:per_worker].tolist()
