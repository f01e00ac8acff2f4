import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TileDataset(Dataset):
    """Tiles stored as shard-*.npz with `image` [n, C, H, W] uint16 and `mask` [n, H, W] uint8."""

    def __init__(self, root, split, augment=False):
        self.shards = sorted(glob.glob(os.path.join(root, f"{split}-*.npz")))
        self.index = []
        for si, path in enumerate(self.shards):
            with np.load(path) as z:
                self.index.extend((si, j) for j in range(z["mask"].shape[0]))
        self.augment = augment
        self._cache = {}

    def __len__(self):
        return len(self.index)

    def _shard(self, si):
        if si not in self._cache:
            self._cache = {si: np.load(self.shards[si])}
        return self._cache[si]

    def __getitem__(self, i):
        si, j = self.index[i]
        z = self._shard(si)
        img = torch.from_numpy(z["image"][j].astype(np.float32) / 10000.0)
        mask = torch.from_numpy(z["mask"][j].astype(np.int64))
        if self.augment and torch.rand(()) < 0.5:
            img, mask = img.flip(-1), mask.flip(-1)
        return img, mask


def make_loader(ds, batch_size, rank, world, train):
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train,
                                 drop_last=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=4,
                      pin_memory=True, drop_last=train), sampler
