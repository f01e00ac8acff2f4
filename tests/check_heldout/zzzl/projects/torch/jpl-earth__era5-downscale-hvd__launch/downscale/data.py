"""Paired coarse/fine fields: <root>/<split>/coarse.npy (T, V, h, w) and fine.npy (T, V, h*f, w*f)."""
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, Subset


class PairedFields(Dataset):
    def __init__(self, root, split):
        self.coarse = np.load(os.path.join(root, split, "coarse.npy"), mmap_mode="r")
        self.fine = np.load(os.path.join(root, split, "fine.npy"), mmap_mode="r")
        st = np.load(os.path.join(root, "stats.npz"))
        self.mu, self.sd = st["mean"][:, None, None], st["std"][:, None, None]

    def __len__(self):
        return self.coarse.shape[0]

    def __getitem__(self, t):
        c = (np.asarray(self.coarse[t]) - self.mu) / self.sd
        f = (np.asarray(self.fine[t]) - self.mu) / self.sd
        return torch.from_numpy(c.astype(np.float32)), torch.from_numpy(f.astype(np.float32))


def rank_subset(ds, rank, size, seed):
    idx = np.random.default_rng(seed).permutation(len(ds))
    per = len(idx) // size
    return Subset(ds, idx[rank * per:(rank + 1) * per].tolist())


def loaders(cfg, rank, size):
    tr = rank_subset(PairedFields(cfg["data_root"], "train"), rank, size, cfg["seed"])
    va = rank_subset(PairedFields(cfg["data_root"], "valid"), rank, size, cfg["seed"])
    return (DataLoader(tr, batch_size=cfg["batch_size"], shuffle=True, drop_last=True, num_workers=2),
            DataLoader(va, batch_size=cfg["batch_size"], shuffle=False, drop_last=True))
