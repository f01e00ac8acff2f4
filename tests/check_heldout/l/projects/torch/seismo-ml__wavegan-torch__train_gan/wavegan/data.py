import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class WaveformDataset(Dataset):
    """Event windows stored as .npy files of shape (3, 16384), already demeaned."""

    def __init__(self, root, length=16384, min_snr=None):
        self.files = sorted(glob.glob(os.path.join(root, "**", "*.npy"), recursive=True))
        if min_snr is not None:
            meta = os.path.join(root, "snr.csv")
            snr = dict(np.loadtxt(meta, delimiter=",", dtype=str))
            self.files = [f for f in self.files if float(snr.get(os.path.basename(f), 0)) >= min_snr]
        self.length = length

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        w = np.load(self.files[i]).astype(np.float32)[:, : self.length]
        w /= np.abs(w).max() + 1e-8
        return torch.from_numpy(w)
