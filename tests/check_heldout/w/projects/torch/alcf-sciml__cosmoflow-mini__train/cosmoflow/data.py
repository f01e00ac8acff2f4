import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class CubeDataset(Dataset):
    """Reads 4-channel 64^3 density cubes lazily from one HDF5 file, for a list of sample indices."""

    def __init__(self, path, indices):
        self.path = path
        self.indices = np.asarray(indices)
        self._h5 = None

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        if self._h5 is None:
            self._h5 = h5py.File(self.path, "r")
        j = int(self.indices[i])
        x = torch.from_numpy(np.log1p(self._h5["cubes"][j].astype(np.float32)))
        y = torch.from_numpy(self._h5["params"][j].astype(np.float32))
        return x, y


def rank_indices(n_samples, val_fraction, rank, size, seed):
    """Same permutation on every rank (shared seed), then equal contiguous blocks per rank.
    The remainder is dropped so every rank runs the same number of steps."""
    perm = np.random.RandomState(seed).permutation(n_samples)
    n_val = int(n_samples * val_fraction)
    val, train = perm[:n_val], perm[n_val:]
    per_train, per_val = len(train) // size, len(val) // size
    return (train[rank * per_train:(rank + 1) * per_train],
            val[rank * per_val:(rank + 1) * per_val])


def n_samples(path):
    with h5py.File(path, "r") as f:
        return f["cubes"].shape[0]
