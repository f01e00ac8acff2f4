"""HDF5 reader: dataset 'full' holds the cubes (N, 1, D, D, D), 'unitPar' the 4 normalised parameters."""
import h5py
import numpy as np
import torch


class H5Cubes(torch.utils.data.Dataset):
    """Reads only the given indices, so each rank touches its own part of the file."""

    def __init__(self, path, indices):
        self.path = path
        self.indices = np.asarray(indices)
        self._h5 = None

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        if self._h5 is None:          # opened lazily: h5py handles do not survive the worker fork
            self._h5 = h5py.File(self.path, "r")
        j = int(self.indices[i])
        x = np.log1p(self._h5["full"][j].astype(np.float32))
        y = self._h5["unitPar"][j].astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(y)


def split_indices(path, val_fraction, seed):
    with h5py.File(path, "r") as f:
        n = f["full"].shape[0]
    perm = np.random.RandomState(seed).permutation(n)   # same permutation on every rank
    n_val = int(n * val_fraction)
    return perm[n_val:], perm[:n_val]


def rank_slice(indices, rank, size):
    """Contiguous block of `indices` for this rank. The remainder is dropped so that every rank
    runs the same number of steps."""
    per_rank = len(indices) // size
    return indices[rank * per_rank:(rank + 1) * per_rank]


def make_loader(path, indices, rank, size, batch, shuffle, seed=0, workers=2):
    ds = H5Cubes(path, rank_slice(indices, rank, size))
    gen = torch.Generator()
    gen.manual_seed(seed + rank)
    return torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=shuffle, generator=gen,
                                       drop_last=True, num_workers=workers)
