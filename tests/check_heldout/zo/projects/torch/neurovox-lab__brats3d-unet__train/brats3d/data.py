"""Case listing, k-fold split and random patch sampling for BraTS volumes.

Each case folder holds `image.npy` (4, D, H, W) float32 (t1, t1ce, t2, flair, z-scored)
and `seg.npy` (D, H, W) uint8 with labels 0..3.
"""
import os

import numpy as np
import torch
from torch.utils.data import Dataset


def list_cases(root):
    return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))


def kfold_split(cases, n_folds, fold, seed=42):
    rng = np.random.RandomState(seed)
    order = rng.permutation(len(cases))
    folds = np.array_split(order, n_folds)
    val = [cases[i] for i in folds[fold]]
    train = [cases[i] for k, f in enumerate(folds) if k != fold for i in f]
    return train, val


def _crop(vol, start, size):
    z, y, x = start
    return vol[..., z:z + size, y:y + size, x:x + size]


class BratsPatchDataset(Dataset):
    """Random cubic patches; with probability `fg_prob` centred on tumour voxels."""

    def __init__(self, root, cases, patch=96, per_case=4, fg_prob=0.66, train=True):
        self.root, self.cases = root, list(cases)
        self.patch, self.per_case = patch, per_case
        self.fg_prob, self.train = fg_prob, train

    def __len__(self):
        return len(self.cases) * (self.per_case if self.train else 1)

    def _load(self, case):
        d = os.path.join(self.root, case)
        return np.load(os.path.join(d, "image.npy")), np.load(os.path.join(d, "seg.npy"))

    def _start(self, seg):
        shape = np.array(seg.shape)
        p = self.patch
        if not self.train:
            return tuple(np.maximum((shape - p) // 2, 0))
        if np.random.rand() < self.fg_prob and seg.any():
            fg = np.argwhere(seg > 0)
            centre = fg[np.random.randint(len(fg))]
        else:
            centre = np.array([np.random.randint(s) for s in shape])
        return tuple(np.clip(centre - p // 2, 0, np.maximum(shape - p, 0)))

    def __getitem__(self, idx):
        img, seg = self._load(self.cases[idx % len(self.cases)])
        start = self._start(seg)
        img, seg = _crop(img, start, self.patch), _crop(seg, start, self.patch)
        if self.train:
            for ax in (1, 2, 3):
                if np.random.rand() < 0.5:
                    img, seg = np.flip(img, ax), np.flip(seg, ax - 1)
        return torch.from_numpy(img.copy()).float(), torch.from_numpy(seg.copy()).long()
