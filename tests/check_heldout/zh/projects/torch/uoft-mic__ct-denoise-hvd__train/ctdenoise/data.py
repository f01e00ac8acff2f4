import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class LDCTPatches(Dataset):
    """Quarter-dose / full-dose patch pairs saved as <id>_input.npy / <id>_target.npy (HU/4000)."""

    def __init__(self, files):
        self.files = files

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        x = np.load(self.files[i])
        y = np.load(self.files[i].replace('_input', '_target'))
        return torch.from_numpy(x[None].astype(np.float32)), torch.from_numpy(y[None].astype(np.float32))


def split_for_worker(data_dir, split, rank, world, seed, shuffle=True):
    """Equal, disjoint slice of the file list for this worker (remainder dropped)."""
    files = sorted(glob.glob(os.path.join(data_dir, split, '*_input.npy')))
    order = np.random.RandomState(seed).permutation(len(files)) if shuffle else np.arange(len(files))
    per_worker = len(files) // world
    mine = order[rank * per_worker:(rank + 1) * per_worker]
    return LDCTPatches([files[i] for i in mine])
