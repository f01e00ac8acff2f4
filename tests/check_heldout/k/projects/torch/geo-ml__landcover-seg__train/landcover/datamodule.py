import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Tiles(Dataset):
    def __init__(self, files, augment):
        self.files = files
        self.augment = augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        blob = np.load(self.files[i])
        x = blob["image"].astype(np.float32) / 10000.0   # reflectance, C x H x W
        y = blob["mask"].astype(np.int64)
        if self.augment:
            k = np.random.randint(4)
            x, y = np.rot90(x, k, (1, 2)), np.rot90(y, k)
            if np.random.rand() < 0.5:
                x, y = x[:, :, ::-1], y[:, ::-1]
        return torch.from_numpy(x.copy()), torch.from_numpy(y.copy())


class TileDataModule:
    """Splits the tile list into `num_shards` interleaved shards and serves shard `shard_id`."""

    def __init__(self, root, batch_size, shard_id=0, num_shards=1, workers=4):
        self.train_files = sorted(glob.glob(os.path.join(root, "train", "*.npz")))
        self.val_files = sorted(glob.glob(os.path.join(root, "val", "*.npz")))
        self.batch_size = batch_size
        self.shard_id, self.num_shards = shard_id, num_shards
        self.workers = workers

    def _shard(self, files):
        per_shard = len(files) // self.num_shards
        return files[self.shard_id::self.num_shards][:per_shard]

    def train_dataloader(self):
        return DataLoader(Tiles(self._shard(self.train_files), augment=True), batch_size=self.batch_size,
                          shuffle=True, num_workers=self.workers, drop_last=True)

    def val_dataloader(self):
        return DataLoader(Tiles(self._shard(self.val_files), augment=False), batch_size=self.batch_size,
                          num_workers=self.workers)
