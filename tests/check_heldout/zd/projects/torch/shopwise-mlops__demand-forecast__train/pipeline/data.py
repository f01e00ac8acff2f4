import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class WindowDataset(Dataset):
    """Sliding windows over per-SKU weekly series: (window) -> (horizon)."""

    def __init__(self, series, window, horizon):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window, self.horizon = window, horizon
        self.per_series = self.series.shape[1] - window - horizon + 1

    def __len__(self):
        return self.series.shape[0] * self.per_series

    def __getitem__(self, i):
        s, t = divmod(i, self.per_series)
        row = self.series[s]
        return row[t:t + self.window], row[t + self.window:t + self.window + self.horizon]


def build_loaders(ds_cfg, batch_size):
    series = np.load(ds_cfg["path"])["series"]
    cut = int(series.shape[0] * 0.9)
    train = WindowDataset(series[:cut], ds_cfg["window"], ds_cfg["horizon"])
    val = WindowDataset(series[cut:], ds_cfg["window"], ds_cfg["horizon"])
    # one shard per GPU worker
    sampler = DistributedSampler(train, num_replicas=hvd.local_size(), rank=hvd.local_rank(), shuffle=True)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=sampler, drop_last=True)
    val_loader = DataLoader(val, batch_size=batch_size, shuffle=False)
    return train_loader, val_loader, sampler
