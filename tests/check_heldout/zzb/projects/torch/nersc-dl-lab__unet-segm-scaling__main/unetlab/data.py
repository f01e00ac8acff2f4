import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TileDataset(Dataset):
    """x: (4, H, W) float32 tiles, y: (1, H, W) masks; synthetic blobs when no folder is given."""

    def __init__(self, root, split, tile=128, n_synth=512):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz"))) if root else []
        self.tile, self.n_synth = tile, n_synth
        self.seed = 0 if split == "train" else 1

    def __len__(self):
        return len(self.files) or self.n_synth

    def __getitem__(self, i):
        if self.files:
            d = np.load(self.files[i])
            x, y = d["x"], d["y"]
        else:
            rng = np.random.default_rng(self.seed * 100003 + i)
            x = rng.normal(size=(4, self.tile, self.tile)).astype(np.float32)
            y = (x[:2].mean(0, keepdims=True) > 0.3).astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(y)


def make_loader(root, split, tile, batch_size, rank, world):
    ds = TileDataset(root, split, tile)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=(split == "train"))
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2,
                      drop_last=(split == "train")), sampler
