import glob
import os

import h5py
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class ERA5Hourly(Dataset):
    """One HDF5 file per year, dataset 'fields' of shape (n_samples_per_year, C, H, W)."""

    def __init__(self, params, location, train):
        self.files = sorted(glob.glob(os.path.join(location, "*.h5")))
        self.in_ch = np.array(params.in_channels)
        self.out_ch = np.array(params.out_channels)
        self.dt = params.dt
        self.n_future = params.n_future if train else 0
        self.mean = np.load(os.path.join(params.stats_path, "global_means.npy"))[0]  # (C, 1, 1)
        self.std = np.load(os.path.join(params.stats_path, "global_stds.npy"))[0]
        with h5py.File(self.files[0], "r") as f:
            self.per_year = f["fields"].shape[0]
        self.n_samples = self.per_year * len(self.files)
        self.handles = [None] * len(self.files)

    def __len__(self):
        return self.n_samples

    def _open(self, y):
        if self.handles[y] is None:
            self.handles[y] = h5py.File(self.files[y], "r")["fields"]
        return self.handles[y]

    def __getitem__(self, idx):
        y, t = divmod(idx, self.per_year)
        # stay inside the year so the target exists
        t = min(t, self.per_year - 1 - self.dt * (self.n_future + 1))
        f = self._open(y)
        x = (f[t, self.in_ch] - self.mean[self.in_ch]) / self.std[self.in_ch]
        tgt = f[t + self.dt:t + self.dt * (self.n_future + 2):self.dt, self.out_ch]
        tgt = (tgt - self.mean[self.out_ch]) / self.std[self.out_ch]
        return torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(tgt, dtype=torch.float32)


def get_data_loader(params, location, distributed, train, rank=0, world_size=1):
    ds = ERA5Hourly(params, location, train)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train) if distributed else None
    loader = DataLoader(ds, batch_size=int(params.batch_size), num_workers=params.get("num_workers", 4),
                        shuffle=(sampler is None and train), sampler=sampler, drop_last=True,
                        pin_memory=torch.cuda.is_available())
    return loader, ds, sampler
