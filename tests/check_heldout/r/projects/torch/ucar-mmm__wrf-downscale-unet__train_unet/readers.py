"""Daily files day_YYYYMMDD.npz with 'coarse' (3, H, W): ERA5 t2m, orography, land mask upsampled to the
WRF grid, and 'fine' (1, H, W): WRF t2m. NaN in 'fine' marks points outside the WRF domain."""
import glob
import os

import numpy as np
import torch

import helpers


class DayDataset(torch.utils.data.Dataset):
    def __init__(self, files):
        self.files = list(files)

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with np.load(self.files[i]) as z:
            return torch.from_numpy(z["coarse"].astype(np.float32)), torch.from_numpy(z["fine"].astype(np.float32))


def list_days(data_dir, val_years=(2019,)):
    files = sorted(glob.glob(os.path.join(data_dir, "day_*.npz")))
    is_val = [int(os.path.basename(f)[4:8]) in val_years for f in files]
    train = [f for f, v in zip(files, is_val) if not v]
    val = [f for f, v in zip(files, is_val) if v]
    return train, val


def partition(files):
    """Round-robin share of the file list for this rank, cut to the same length on every rank
    (same as the old mpi4py scatter)."""
    n = len(files) // helpers.SIZE
    return files[helpers.RANK::helpers.SIZE][:n]


def day_loader(files, batch_size, shuffle):
    my_files = partition(files)
    ds = DayDataset(files)
    return torch.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=shuffle, drop_last=shuffle,
                                       num_workers=4, pin_memory=True)
