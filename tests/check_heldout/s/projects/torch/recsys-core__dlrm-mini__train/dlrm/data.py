"""Pre-processed Criteo parts: each .npz holds dense (n, 13) float32, cat (n, 26) int64, label (n,)."""
import glob

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class CriteoParts(Dataset):
    def __init__(self, files):
        dense, cat, label = [], [], []
        for f in files:
            z = np.load(f)
            dense.append(z["dense"])
            cat.append(z["cat"])
            label.append(z["label"])
        self.dense = torch.from_numpy(np.log1p(np.maximum(np.concatenate(dense), 0)))
        self.cat = torch.from_numpy(np.concatenate(cat))
        self.label = torch.from_numpy(np.concatenate(label).astype(np.float32))

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        return self.dense[i], self.cat[i], self.label[i]


def part_files(pattern, rank, world):
    files = sorted(glob.glob(pattern))
    if len(files) < world:
        raise RuntimeError(f"{len(files)} parts for {world} workers under {pattern}")
    return files[rank::world]


def make_loader(pattern, batch_size, rank, world, train):
    ds = CriteoParts(part_files(pattern, rank, world))
    return DataLoader(ds, batch_size=batch_size, shuffle=train, drop_last=train)
