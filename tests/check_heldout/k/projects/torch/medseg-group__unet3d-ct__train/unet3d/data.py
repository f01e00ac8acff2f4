import os

import numpy as np
import torch
from torch.utils.data import Dataset


def list_cases(root):
    return sorted(f[:-4] for f in os.listdir(root) if f.endswith(".npz"))


def load_case(root, case):
    blob = np.load(os.path.join(root, case + ".npz"))
    img = np.clip(blob["image"].astype(np.float32), -200, 300)
    img = (img - 50.0) / 250.0
    return img, blob["label"].astype(np.int64)


class PatchDataset(Dataset):
    """Random foreground-biased patches from a fixed list of cases.

    The length is fixed (`patches_per_epoch`), whatever the number of cases, so that every
    worker runs the same number of steps per epoch.
    """

    def __init__(self, root, cases, patches_per_epoch, patch=(96, 96, 96)):
        self.root, self.cases, self.patch = root, cases, np.array(patch)
        self.length = patches_per_epoch

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        img, lab = load_case(self.root, self.cases[i % len(self.cases)])
        shape = np.array(img.shape)
        pad = np.maximum(self.patch - shape, 0)
        if pad.any():
            img = np.pad(img, [(0, p) for p in pad])
            lab = np.pad(lab, [(0, p) for p in pad])
            shape = np.array(img.shape)
        fg = np.argwhere(lab > 0)
        if len(fg) and np.random.rand() < 0.67:
            center = fg[np.random.randint(len(fg))]
            start = np.clip(center - self.patch // 2, 0, shape - self.patch)
        else:
            start = np.array([np.random.randint(0, s - p + 1) for s, p in zip(shape, self.patch)])
        sl = tuple(slice(s, s + p) for s, p in zip(start, self.patch))
        return torch.from_numpy(img[sl][None].copy()), torch.from_numpy(lab[sl].copy())
