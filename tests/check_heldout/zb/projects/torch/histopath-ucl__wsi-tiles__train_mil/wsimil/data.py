import csv
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset


class SlideBags(Dataset):
    """split csv: slide_id,label,split ; features in <feature_dir>/<slide_id>.npy, shape (n_tiles, feat_dim)."""

    def __init__(self, split_file, split, feature_dir, bag_size):
        with open(split_file) as f:
            rows = [r for r in csv.DictReader(f) if r["split"] == split]
        self.items = [(os.path.join(feature_dir, r["slide_id"] + ".npy"), int(r["label"])) for r in rows]
        self.bag_size = bag_size

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        feats = np.load(path, mmap_mode="r")
        idx = np.random.choice(len(feats), self.bag_size, replace=len(feats) < self.bag_size)
        return torch.from_numpy(np.asarray(feats[np.sort(idx)], dtype=np.float32)), label


def rank_loader(ds, batch_size, rank, world, seed):
    """Same permutation on every rank (shared seed), cut to a multiple of world, every world-th slide."""
    perm = np.random.default_rng(seed).permutation(len(ds))
    perm = perm[: len(perm) - len(perm) % world]
    return DataLoader(Subset(ds, perm[rank::world].tolist()), batch_size=batch_size, shuffle=True,
                      num_workers=4, drop_last=True)


def full_loader(ds, batch_size):
    return DataLoader(ds, batch_size=batch_size, shuffle=False, num_workers=4)
