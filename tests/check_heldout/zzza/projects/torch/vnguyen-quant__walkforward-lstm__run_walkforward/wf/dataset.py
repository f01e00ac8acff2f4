import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def synthetic_prices(n_days=2600, n_assets=8, seed=3):
    rng = np.random.default_rng(seed)
    dates = np.arange(np.datetime64("2012-01-02"), np.datetime64("2012-01-02") + n_days)
    rets = rng.normal(0.0003, 0.012, size=(n_days, n_assets)).astype(np.float32)
    return dates, rets


class ReturnWindows(Dataset):
    """Predict next-day return of every asset from the last `lookback` days."""

    def __init__(self, rets, idx, lookback, mean, std):
        self.z = ((rets - mean) / std).astype(np.float32)
        self.idx = [i for i in idx if i >= lookback]
        self.lookback = lookback

    def __len__(self):
        return len(self.idx)

    def __getitem__(self, k):
        i = self.idx[k]
        return torch.from_numpy(self.z[i - self.lookback:i]), torch.from_numpy(self.z[i])


def make_loaders(rets, period, lookback, batch_size):
    tr = rets[period.train_idx]
    mean, std = tr.mean(0), tr.std(0) + 1e-8
    train_ds = ReturnWindows(rets, period.train_idx, lookback, mean, std)
    test_ds = ReturnWindows(rets, period.test_idx, lookback, mean, std)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = DistributedSampler(test_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler, drop_last=True)
    test_loader = DataLoader(test_ds, batch_size=batch_size, sampler=test_sampler)
    return train_loader, test_loader, train_sampler
