import numpy as np


def load_split(path, split, classes):
    d = np.load(path, allow_pickle=False)
    x = d[f"x_{split}"].astype(np.float32)
    y = d[f"y_{split}"].astype(np.float32)[:, :len(classes)]
    return x, y


def standardize(x, mean=None, std=None):
    if mean is None:
        mean = x.mean(axis=(0, 1), keepdims=True)
        std = x.std(axis=(0, 1), keepdims=True) + 1e-6
    return (x - mean) / std, mean, std


def rank_slice(x, y, rank, size):
    """Worker `rank` keeps rows rank, rank+size, rank+2*size, ..."""
    return x[rank::size], y[rank::size]
