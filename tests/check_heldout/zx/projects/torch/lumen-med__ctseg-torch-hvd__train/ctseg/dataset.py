import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class CTSliceDataset(Dataset):
    """Axial slices stored as <case>_<idx>.npz with 'image' (HU) and 'mask'."""

    def __init__(self, root, split, augment=False, window=(-100, 400)):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.augment = augment
        self.lo, self.hi = window

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        arr = np.load(self.files[idx])
        img = np.clip(arr["image"].astype(np.float32), self.lo, self.hi)
        img = (img - self.lo) / (self.hi - self.lo)
        mask = (arr["mask"] > 0).astype(np.float32)
        if self.augment and np.random.rand() < 0.5:
            img, mask = img[:, ::-1].copy(), mask[:, ::-1].copy()
        return torch.from_numpy(img)[None], torch.from_numpy(mask)[None]
