import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def load_arrays(path):
    blob = np.load(path)
    return blob["x"].astype(np.float32), blob["y"].astype(np.int64)


def assign_folds(y, n_folds, seed):
    """Stratified fold ids; same seed on every rank -> same assignment."""
    rng = np.random.RandomState(seed)
    folds = np.zeros(len(y), dtype=np.int64)
    for cls in np.unique(y):
        idx = np.where(y == cls)[0]
        rng.shuffle(idx)
        folds[idx] = np.arange(len(idx)) % n_folds
    return folds


class IndexedDataset(Dataset):
    def __init__(self, x, y, indices):
        self.x, self.y, self.indices = x, y, indices

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        j = self.indices[i]
        return torch.from_numpy(self.x[j]), self.y[j], j


def make_loaders(x, y, folds, fold, cfg):
    tr_idx = np.where(folds != fold)[0]
    va_idx = np.where(folds == fold)[0]
    tr_ds, va_ds = IndexedDataset(x, y, tr_idx), IndexedDataset(x, y, va_idx)
    tr_sampler = DistributedSampler(tr_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    va_sampler = DistributedSampler(va_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    tr = DataLoader(tr_ds, batch_size=cfg.batch_size, sampler=tr_sampler,
                    num_workers=cfg.num_workers, drop_last=True)
    va = DataLoader(va_ds, batch_size=cfg.batch_size * 2, sampler=va_sampler,
                    num_workers=cfg.num_workers)
    return tr, va, tr_sampler
