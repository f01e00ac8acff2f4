import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class TileDataset(Dataset):
    """Pre-cut .npz tiles with an 'image' (C,H,W) and a 'mask' (H,W) array."""

    def __init__(self, root, split):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no tiles under {root}/{split}")

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        z = np.load(self.files[i])
        return torch.from_numpy(z["image"].astype(np.float32)), torch.from_numpy(z["mask"].astype(np.int64))


def make_loaders(cfg):
    train, val = TileDataset(cfg.tiles_dir, "train"), TileDataset(cfg.tiles_dir, "val")
    # each GPU of a node takes its own part of the tiles
    train_sampler = DistributedSampler(train, num_replicas=hvd.local_size(), rank=hvd.local_rank(), shuffle=True)
    val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, cfg.batch_size, sampler=train_sampler, num_workers=4, drop_last=True),
            DataLoader(val, cfg.batch_size, sampler=val_sampler, num_workers=2),
            train_sampler)
