import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class SlicePairs(Dataset):
    """Low-dose / full-dose CT slice pairs stored as <id>_low.npy, <id>_full.npy."""

    def __init__(self, root, ids, patch=64, train=True):
        self.root, self.ids, self.patch, self.train = root, list(ids), patch, train

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        low = np.load(os.path.join(self.root, f"{self.ids[i]}_low.npy")).astype(np.float32)
        full = np.load(os.path.join(self.root, f"{self.ids[i]}_full.npy")).astype(np.float32)
        if self.train:
            y0 = np.random.randint(0, low.shape[0] - self.patch + 1)
            x0 = np.random.randint(0, low.shape[1] - self.patch + 1)
            low = low[y0:y0 + self.patch, x0:x0 + self.patch]
            full = full[y0:y0 + self.patch, x0:x0 + self.patch]
        return torch.from_numpy(low)[None], torch.from_numpy(full)[None]


def list_ids(root):
    return sorted(os.path.basename(p)[:-8] for p in glob.glob(os.path.join(root, "*_low.npy")))


def rank_split(ids, rank, size, seed, epoch=0):
    """Same shuffled order on every rank (seed + epoch), equal-size strided slices."""
    order = np.random.RandomState(seed + epoch).permutation(len(ids))
    per_rank = len(ids) // size
    mine = order[rank::size][:per_rank]
    return [ids[j] for j in mine]
