import os

import numpy as np
import torch
from torch.utils.data import Dataset


class CylinderFlow(Dataset):
    """(Reynolds number, geometry mask) -> mean flow (u, v, p). Normalised with training statistics."""

    def __init__(self, path, stats=None):
        with np.load(path) as f:
            self.x = torch.from_numpy(f["inputs"].astype(np.float32))   # (N, 2, H, W)
            self.y = torch.from_numpy(f["fields"].astype(np.float32))   # (N, 3, H, W)
        if stats is None:
            stats = (self.y.mean(dim=(0, 2, 3), keepdim=True)[0], self.y.std(dim=(0, 2, 3), keepdim=True)[0])
        self.mean, self.std = stats
        self.y = (self.y - self.mean) / self.std

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_datasets(data_dir):
    train = CylinderFlow(os.path.join(data_dir, "train.npz"))
    val = CylinderFlow(os.path.join(data_dir, "val.npz"), stats=(train.mean, train.std))
    return train, val
