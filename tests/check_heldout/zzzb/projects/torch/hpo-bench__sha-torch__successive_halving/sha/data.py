import numpy as np
import torch
from torch.utils.data import TensorDataset


def load_table(path=None, n=6000, dim=32, classes=4, seed=1234):
    """Load features/labels from an .npz, or make a synthetic task with a fixed seed."""
    if path:
        d = np.load(path)
        x, y = d["x"].astype(np.float32), d["y"].astype(np.int64)
    else:
        rng = np.random.RandomState(seed)
        centers = rng.randn(classes, dim) * 2.0
        y = rng.randint(0, classes, n)
        x = (centers[y] + rng.randn(n, dim)).astype(np.float32)
    return x, y


def split_and_shard(x, y, rank, world, val_frac=0.2, seed=1234):
    """Same permutation on every worker, then an equal strided slice per worker."""
    perm = np.random.RandomState(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    val_idx, train_idx = perm[:n_val], perm[n_val:]
    train_idx = train_idx[: len(train_idx) // world * world][rank::world]
    val_idx = val_idx[: len(val_idx) // world * world][rank::world]
    mk = lambda idx: TensorDataset(torch.from_numpy(x[idx]), torch.from_numpy(y[idx]))
    return mk(train_idx), mk(val_idx)
