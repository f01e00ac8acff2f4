"""CosmoFlow-style 3D cubes stored as one .npz per sample (x: [C, D, H, W], y: [4])."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class CosmoCubes(Dataset):
    def __init__(self, folder, log_transform=True):
        self.files = sorted(glob.glob(os.path.join(folder, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no .npz samples under {folder}")
        self.log_transform = log_transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        with np.load(self.files[idx]) as f:
            x, y = f["x"].astype(np.float32), f["y"].astype(np.float32)
        if self.log_transform:
            x = np.log1p(x)
        return torch.from_numpy(x), torch.from_numpy(y)


def make_loader(folder, batch_size, shuffle, workers=2):
    ds = CosmoCubes(folder)
    # one shard per GPU of the node (Perlmutter: 4 GPUs per node)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=shuffle, drop_last=shuffle)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=torch.cuda.is_available(), drop_last=shuffle)
    return loader, sampler
