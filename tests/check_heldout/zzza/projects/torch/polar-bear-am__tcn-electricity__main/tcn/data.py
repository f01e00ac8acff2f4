import numpy as np
import torch
from torch.utils.data import Dataset


def load_electricity(path, n_series=16, n_hours=8760):
    if path:
        return np.loadtxt(path, delimiter=",", dtype=np.float32)
    rng = np.random.default_rng(11)
    t = np.arange(n_hours)[:, None]
    base = rng.uniform(50, 500, size=(1, n_series))
    daily = 1 + 0.3 * np.sin(2 * np.pi * (t + rng.integers(0, 24, n_series)) / 24)
    return (base * daily * rng.lognormal(0, 0.05, (n_hours, n_series))).astype(np.float32)


class SlidingWindows(Dataset):
    def __init__(self, arr, window, horizon, starts):
        self.arr = torch.from_numpy(arr)
        self.window, self.horizon = window, horizon
        self.starts = np.asarray(starts)

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = int(self.starts[i])
        return self.arr[s:s + self.window], self.arr[s + self.window:s + self.window + self.horizon]


def build(arr, window, horizon, test_hours):
    cut = len(arr) - test_hours
    scale = arr[:cut].mean(axis=0, keepdims=True)
    arr = np.log1p(arr / scale)
    train_starts = np.arange(0, cut - window - horizon + 1)
    test_starts = np.arange(cut - window, len(arr) - window - horizon + 1, horizon)
    return (SlidingWindows(arr, window, horizon, train_starts),
            SlidingWindows(arr, window, horizon, test_starts), scale)


def contiguous_block(n, rank, world):
    """Every worker gets one contiguous block of window starts; blocks are equal sized."""
    per = n // world
    return list(range(rank * per, (rank + 1) * per))
