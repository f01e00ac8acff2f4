"""PTB-XL style 12-lead records stored as one .npy per record plus a labels CSV."""
import csv
import os

import numpy as np
import torch
from torch.utils.data import Dataset

SUPERCLASSES = ["NORM", "MI", "STTC", "CD", "HYP"]


def read_index(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


class ECGRecords(Dataset):
    def __init__(self, root, folds, crop=1000, train=False):
        rows = read_index(os.path.join(root, "index.csv"))
        self.rows = [r for r in rows if int(r["strat_fold"]) in folds]
        self.root = root
        self.crop = crop
        self.train = train

    def __len__(self):
        return len(self.rows)

    def _target(self, row):
        y = np.zeros(len(SUPERCLASSES), dtype=np.float32)
        for name in row["superclass"].split(";"):
            if name in SUPERCLASSES:
                y[SUPERCLASSES.index(name)] = 1.0
        return y

    def __getitem__(self, i):
        row = self.rows[i]
        sig = np.load(os.path.join(self.root, "records", row["filename"] + ".npy")).astype(np.float32)
        if self.train:
            start = np.random.randint(0, sig.shape[1] - self.crop + 1)
        else:
            start = (sig.shape[1] - self.crop) // 2
        sig = sig[:, start:start + self.crop]
        sig = (sig - sig.mean(axis=1, keepdims=True)) / (sig.std(axis=1, keepdims=True) + 1e-6)
        return torch.from_numpy(sig), torch.from_numpy(self._target(row))
