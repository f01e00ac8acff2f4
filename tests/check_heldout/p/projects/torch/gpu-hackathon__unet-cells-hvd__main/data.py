import os

import numpy as np
import torch
from torch.utils.data import Dataset, Subset


class CellDataset(Dataset):
    """images.npy (N, H, W) uint8 and masks.npy (N, H, W) {0,1} in one folder."""

    def __init__(self, root, split):
        self.images = np.load(os.path.join(root, f"{split}_images.npy"), mmap_mode="r")
        self.masks = np.load(os.path.join(root, f"{split}_masks.npy"), mmap_mode="r")

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(np.asarray(self.images[i], dtype=np.float32) / 255.0)[None]
        mask = torch.from_numpy(np.asarray(self.masks[i], dtype=np.float32))[None]
        return img, mask


def shard(dataset, rank, world):
    """Every world-th sample, starting at rank; the remainder is dropped so that all ranks
    get the same number of samples (and run the same number of steps)."""
    n = len(dataset) // world
    return Subset(dataset, list(range(rank, n * world, world)))
