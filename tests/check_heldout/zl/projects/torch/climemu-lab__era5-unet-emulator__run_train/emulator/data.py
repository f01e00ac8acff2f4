"""ERA5 snapshots in one HDF5 file per year: dataset 'fields' with shape (T, C, H, W)."""
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class ERA5Pairs(Dataset):
    """(state_t, state_t+lead) pairs; files are opened lazily so it works with worker processes."""

    def __init__(self, files, lead=1, stats=None):
        self.files, self.lead = list(files), lead
        self._h5 = {}
        self.index = []
        for fi, fn in enumerate(self.files):
            with h5py.File(fn, "r") as f:
                n = f["fields"].shape[0]
            self.index += [(fi, t) for t in range(n - lead)]
        self.mean, self.std = (stats if stats is not None else (0.0, 1.0))

    def _file(self, fi):
        if fi not in self._h5:
            self._h5[fi] = h5py.File(self.files[fi], "r")
        return self._h5[fi]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        fi, t = self.index[i]
        ds = self._file(fi)["fields"]
        x = (ds[t].astype(np.float32) - self.mean) / self.std
        y = (ds[t + self.lead].astype(np.float32) - self.mean) / self.std
        return torch.from_numpy(x), torch.from_numpy(y)


def latitude_weights(n_lat):
    lat = np.linspace(-90, 90, n_lat)
    w = np.cos(np.deg2rad(lat))
    return torch.tensor(w / w.mean(), dtype=torch.float32).view(1, 1, -1, 1)
