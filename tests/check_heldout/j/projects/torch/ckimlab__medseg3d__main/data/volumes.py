import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class PatchVolumes(Dataset):
    """Pre-cropped CT patches saved as ``case_xxx.npz`` with ``image`` and ``label`` arrays."""

    def __init__(self, root, split, patch=(96, 96, 96), augment=False):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.patch = patch
        self.augment = augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        d = np.load(self.files[idx])
        img, lbl = d["image"].astype(np.float32), d["label"].astype(np.int64)
        if self.augment:
            starts = [np.random.randint(0, s - p + 1) for s, p in zip(img.shape, self.patch)]
        else:
            starts = [(s - p) // 2 for s, p in zip(img.shape, self.patch)]
        sl = tuple(slice(a, a + p) for a, p in zip(starts, self.patch))
        img, lbl = img[sl], lbl[sl]
        if self.augment:
            for ax in range(3):
                if np.random.rand() < 0.5:
                    img, lbl = np.flip(img, ax), np.flip(lbl, ax)
        img = np.clip(img, -200, 300) / 250.0
        return torch.from_numpy(img.copy())[None], torch.from_numpy(lbl.copy())
