import csv

import numpy as np
import torch
from torch.utils.data import Dataset

TARGET = "yield"


def read_table(path, target=TARGET):
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    cols = [c for c in rows[0] if c not in ("id", target)]
    X = np.array([[float(r[c]) for c in cols] for r in rows], dtype=np.float32)
    ids = np.array([int(r["id"]) for r in rows])
    y = np.array([float(r[target]) for r in rows], dtype=np.float32) if target in rows[0] else None
    return ids, X, y, cols


def standardize(train_X, *others):
    mu, sd = train_X.mean(0), train_X.std(0) + 1e-6
    return [(a - mu) / sd for a in (train_X,) + others]


class TabDataset(Dataset):
    def __init__(self, X, y=None):
        self.X = torch.from_numpy(X)
        self.y = None if y is None else torch.from_numpy(y)

    def __len__(self):
        return len(self.X)

    def __getitem__(self, i):
        if self.y is None:
            return self.X[i]
        return self.X[i], self.y[i]
