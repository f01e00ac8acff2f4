import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset

# Sentinel-2 L2A band statistics over the training tiles (B2..B12, 10 bands).
BAND_MEAN = np.array([520, 790, 740, 1210, 2330, 2750, 2910, 3010, 2150, 1380], dtype=np.float32)
BAND_STD = np.array([390, 420, 510, 520, 720, 860, 930, 960, 780, 690], dtype=np.float32)


class ParcelTimeSeries(Dataset):
    """One .npz per field parcel: `x` (T, 10) reflectances, `doy` (T,), label in index.json."""

    def __init__(self, root, split, max_len=64, augment=False):
        with open(os.path.join(root, f"{split}.json")) as f:
            self.items = json.load(f)
        self.root = root
        self.max_len = max_len
        self.augment = augment

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        item = self.items[i]
        arr = np.load(os.path.join(self.root, item["file"]))
        x = (arr["x"].astype(np.float32) - BAND_MEAN) / BAND_STD
        doy = arr["doy"].astype(np.int64)
        t = len(doy)
        if t > self.max_len:
            keep = np.sort(np.random.choice(t, self.max_len, replace=False)) if self.augment \
                else np.linspace(0, t - 1, self.max_len).astype(int)
            x, doy, t = x[keep], doy[keep], self.max_len
        if self.augment:
            x = x + np.random.normal(0, 0.01, size=x.shape).astype(np.float32)
        xs = np.zeros((self.max_len, x.shape[1]), np.float32)
        ds = np.zeros(self.max_len, np.int64)
        mask = np.ones(self.max_len, bool)
        xs[:t], ds[:t], mask[:t] = x, doy, False
        return torch.from_numpy(xs), torch.from_numpy(ds), torch.from_numpy(mask), int(item["label"])
