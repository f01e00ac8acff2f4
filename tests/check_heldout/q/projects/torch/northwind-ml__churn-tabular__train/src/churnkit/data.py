import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_splits(path, val_fraction, seed):
    blob = np.load(path)
    x, y = blob["features"].astype(np.float32), blob["churned"].astype(np.float32)
    order = np.random.default_rng(seed).permutation(len(x))  # same permutation on every rank
    n_val = int(len(x) * val_fraction)
    return (x[order[n_val:]], y[order[n_val:]]), (x[order[:n_val]], y[order[:n_val]])


def rank_slice(arrays, world_size, rank):
    """Contiguous equal slice for this rank; the tail that does not divide evenly is dropped."""
    per_rank = len(arrays[0]) // world_size
    lo = rank * per_rank
    return tuple(a[lo:lo + per_rank] for a in arrays)


def make_loader(arrays, batch_size, shuffle, seed=0):
    ds = TensorDataset(*(torch.from_numpy(a) for a in arrays))
    gen = torch.Generator().manual_seed(seed)
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, drop_last=shuffle, generator=gen)
