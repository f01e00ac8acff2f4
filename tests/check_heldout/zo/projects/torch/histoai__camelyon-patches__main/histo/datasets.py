import os

import numpy as np
from torch.utils.data import Dataset


class PatchShardDataset(Dataset):
    """Patches pre-extracted into .npz shards: `x` (n, 96, 96, 3) uint8, `y` (n,) in {0, 1}."""

    def __init__(self, folder, transform=None):
        files = sorted(f for f in os.listdir(folder) if f.endswith(".npz"))
        xs, ys = [], []
        for f in files:
            with np.load(os.path.join(folder, f)) as z:
                xs.append(z["x"])
                ys.append(z["y"])
        self.x = np.concatenate(xs)
        self.y = np.concatenate(ys).astype(np.int64)
        self.transform = transform

    def __len__(self):
        return len(self.y)

    def class_weights(self):
        counts = np.bincount(self.y, minlength=2).astype(np.float64)
        return (counts.sum() / (2.0 * np.maximum(counts, 1))).astype(np.float32)

    def __getitem__(self, i):
        img = self.x[i]
        if self.transform is not None:
            img = self.transform(img)
        return img, self.y[i]
