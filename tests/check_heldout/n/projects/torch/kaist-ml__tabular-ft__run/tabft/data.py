import numpy as np
import torch


def load_npz(path):
    d = np.load(path)
    return (torch.from_numpy(d["x_num"].astype(np.float32)), torch.from_numpy(d["x_cat"].astype(np.int64)),
            torch.from_numpy(d["y"].astype(np.int64)))


def standardize(train_num, *others):
    mu, sd = train_num.mean(0), train_num.std(0).clamp_min(1e-6)
    return [(t - mu) / sd for t in (train_num,) + others]


def shard(tensors, rank, world):
    """Contiguous, equal-sized block per worker (the tail that does not divide is dropped)."""
    n = len(tensors[0]) // world
    return [t[rank * n:(rank + 1) * n] for t in tensors]


def iterate(x_num, x_cat, y, batch_size, generator):
    perm = torch.randperm(len(y), generator=generator)
    for i in range(0, len(y) - batch_size + 1, batch_size):
        idx = perm[i:i + batch_size]
        yield x_num[idx], x_cat[idx], y[idx]
