import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class CTVolumes(Dataset):
    """Preprocessed cases case_XXXXX.npz with `image` (D,H,W) float16 and `label` (D,H,W) uint8."""

    def __init__(self, root, split, patch_size=None, patches_per_volume=1):
        with open(os.path.join(root, f"{split}.txt")) as f:
            cases = [l.strip() for l in f if l.strip()]
        self.files = [os.path.join(root, c + ".npz") for c in cases]
        self.patch_size = patch_size
        self.ppv = patches_per_volume if patch_size else 1

    def __len__(self):
        return len(self.files) * self.ppv

    def _random_patch(self, img, lbl):
        pd, ph, pw = self.patch_size
        img = np.pad(img, [(0, max(0, p - s)) for p, s in zip(self.patch_size, img.shape)])
        lbl = np.pad(lbl, [(0, max(0, p - s)) for p, s in zip(self.patch_size, lbl.shape)])
        fg = np.argwhere(lbl > 0)
        if len(fg) and np.random.rand() < 0.33:  # oversample foreground
            c = fg[np.random.randint(len(fg))]
            start = [int(np.clip(ci - p // 2, 0, s - p)) for ci, p, s in zip(c, self.patch_size, lbl.shape)]
        else:
            start = [np.random.randint(0, s - p + 1) for p, s in zip(self.patch_size, lbl.shape)]
        d, h, w = start
        return img[d:d + pd, h:h + ph, w:w + pw], lbl[d:d + pd, h:h + ph, w:w + pw]

    def __getitem__(self, i):
        case = np.load(self.files[i // self.ppv])
        img, lbl = case["image"].astype(np.float32), case["label"].astype(np.int64)
        if self.patch_size:
            img, lbl = self._random_patch(img, lbl)
        return torch.from_numpy(img[None].copy()), torch.from_numpy(lbl.copy())
