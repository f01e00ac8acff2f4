import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class SpectrogramPatches(Dataset):
    """Waterfall patches (time x frequency) of visibility amplitudes with a boolean RFI mask.
    Each .npz holds `amp` (K, 64, 256) and `mask` (K, 64, 256), the same K for every file."""

    def __init__(self, files, augment=False):
        self.amp = np.concatenate([np.load(f)["amp"] for f in files]).astype(np.float32)
        self.mask = np.concatenate([np.load(f)["mask"] for f in files]).astype(np.float32)
        self.augment = augment

    def __len__(self):
        return len(self.amp)

    def __getitem__(self, i):
        a, m = np.log10(self.amp[i] + 1e-3), self.mask[i]
        if self.augment and np.random.rand() < 0.5:
            a, m = a[:, ::-1].copy(), m[:, ::-1].copy()
        return torch.from_numpy(a)[None], torch.from_numpy(m)[None]


def files_for_rank(root, split, size, rank):
    """Contiguous block of observation files per rank; the tail that does not divide
    evenly is left out so every rank holds the same number of patches."""
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    per_rank = len(files) // size
    if per_rank == 0:
        raise ValueError(f"{len(files)} {split} files cannot feed {size} ranks")
    return files[rank * per_rank:(rank + 1) * per_rank]
