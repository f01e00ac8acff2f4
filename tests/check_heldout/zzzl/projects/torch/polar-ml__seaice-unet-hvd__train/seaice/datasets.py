"""Daily sea-ice concentration (SIC) on the 25 km EASE grid, from one HDF5 file:
   /sic      (T, H, W)  float32, 0..1
   /forcing  (T, C, H, W) float32 (t2m, sst, u10, v10)
   /year     (T,) int16
"""
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class SeaIceSequence(Dataset):
    def __init__(self, path, years, history, lead, stats=None):
        self.path = path
        self.history = history
        self.lead = lead
        with h5py.File(path, "r") as f:
            yr = f["year"][:]
        t = np.nonzero((yr >= years[0]) & (yr <= years[1]))[0]
        # need `history` days before and `lead` days after
        self.t = t[(t >= history - 1) & (t + lead < len(yr))]
        self.stats = stats
        self._f = None

    def _file(self):
        if self._f is None:  # opened lazily, once per worker
            self._f = h5py.File(self.path, "r")
        return self._f

    def __len__(self):
        return len(self.t)

    def __getitem__(self, i):
        f = self._file()
        t = int(self.t[i])
        sic = f["sic"][t - self.history + 1:t + 1]
        frc = f["forcing"][t + 1:t + 1 + self.lead]
        target = f["sic"][t + 1:t + 1 + self.lead]
        m, s = self.stats
        frc = (frc - m[None, :, None, None]) / s[None, :, None, None]
        return (torch.from_numpy(np.ascontiguousarray(sic)),
                torch.from_numpy(np.ascontiguousarray(frc, dtype=np.float32)),
                torch.from_numpy(np.ascontiguousarray(target)))


def forcing_stats(path, years):
    # cheap: every 10th day of the training years
    with h5py.File(path, "r") as f:
        yr = f["year"][:]
        t = np.nonzero((yr >= years[0]) & (yr <= years[1]))[0][::10]
        x = f["forcing"][np.sort(t)]
    return x.mean(axis=(0, 2, 3)).astype(np.float32), (x.std(axis=(0, 2, 3)) + 1e-6).astype(np.float32)


def make_loader(ds, batch_size, workers, train=True):
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=train, drop_last=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=True, drop_last=train, persistent_workers=workers > 0)
    return loader, sampler
