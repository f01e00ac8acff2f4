import numpy as np
import torch
from torch.utils.data import Dataset


def load_sensor_csv(path):
    """Multivariate sensor log, one row per second, first column is the timestamp."""
    arr = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
    return arr[:, 1:]


class Standardizer:
    def fit(self, x):
        self.mu, self.sigma = x.mean(0), x.std(0) + 1e-6
        return self

    def __call__(self, x):
        return (x - self.mu) / self.sigma

    def state(self):
        return {"mu": self.mu.tolist(), "sigma": self.sigma.tolist()}


class SlidingWindows(Dataset):
    """Windows of `length` steps; target is the step right after the window."""

    def __init__(self, series, length, stride=1):
        self.x = torch.from_numpy(np.ascontiguousarray(series))
        self.length, self.stride = length, stride

    def __len__(self):
        return (len(self.x) - self.length - 1) // self.stride + 1

    def __getitem__(self, i):
        s = i * self.stride
        return self.x[s:s + self.length].T, self.x[s + self.length]
