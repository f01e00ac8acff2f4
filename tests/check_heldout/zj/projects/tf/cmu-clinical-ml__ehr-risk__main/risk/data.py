import numpy as np


def load_cohort(path):
    blob = np.load(path)
    x = blob["features"].astype("float32")
    y = blob["label"].astype("float32")
    mu, sd = x.mean(0), x.std(0) + 1e-6
    return (x - mu) / sd, y


def train_val_split(x, y, val_frac=0.15, seed=2024):
    idx = np.random.RandomState(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    return (x[idx[n_val:]], y[idx[n_val:]]), (x[idx[:n_val]], y[idx[:n_val]])


def worker_shard(x, y, rank, world):
    """Shuffle first so every shard has the same positive rate, then take every world-th row."""
    idx = np.random.permutation(len(x))
    idx = idx[rank::world][: len(x) // world]
    return x[idx], y[idx]
