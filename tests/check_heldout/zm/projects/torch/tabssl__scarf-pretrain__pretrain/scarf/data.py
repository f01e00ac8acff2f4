import csv

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def load_table(path, label_col=None):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    cols = [c for c in rows[0] if c != label_col]
    x = np.array([[float(r[c]) for c in cols] for r in rows], dtype=np.float32)
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    y = np.array([int(float(r[label_col])) for r in rows]) if label_col else None
    return x, y


def partition(n, rank, world, seed):
    """Same permutation on every worker, then an equal strided slice per worker."""
    perm = np.random.RandomState(seed).permutation(n)
    per_worker = n // world
    return perm[rank::world][:per_worker]


class CorruptedViews(Dataset):
    """Two views of a row: features replaced by draws from their empirical marginals."""

    def __init__(self, x, rows, rate):
        self.x, self.rows, self.rate = x, rows, rate

    def __len__(self):
        return len(self.rows)

    def _corrupt(self, row):
        mask = np.random.rand(row.shape[0]) < self.rate
        donors = self.x[np.random.randint(0, len(self.x), size=row.shape[0]), np.arange(row.shape[0])]
        return np.where(mask, donors, row).astype(np.float32)

    def __getitem__(self, i):
        row = self.x[self.rows[i]]
        return torch.from_numpy(self._corrupt(row)), torch.from_numpy(self._corrupt(row))


def make_loader(x, rows, batch_size, rate):
    return DataLoader(CorruptedViews(x, rows, rate), batch_size=batch_size,
                      shuffle=True, drop_last=True, num_workers=2)
