import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_split(path):
    d = np.load(path)
    x_tr, y_tr, x_va, y_va = d["x_train"], d["y_train"], d["x_valid"], d["y_valid"]
    mu, sd = x_tr.mean(0), x_tr.std(0) + 1e-6
    f = lambda a: torch.from_numpy(((a - mu) / sd).astype(np.float32))
    return (f(x_tr), torch.from_numpy(y_tr.astype(np.int64))), (f(x_va), torch.from_numpy(y_va.astype(np.int64)))


def equal_shard(x, y, rank, world, seed):
    """Same seeded permutation everywhere, then contiguous equal parts (remainder dropped)."""
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    per = len(x) // world
    idx = perm[rank * per:(rank + 1) * per]
    return x[idx], y[idx]


def worker_loaders(path, rank, world, per_worker_batch, seed):
    (x_tr, y_tr), (x_va, y_va) = load_split(path)
    tr = TensorDataset(*equal_shard(x_tr, y_tr, rank, world, seed))
    va = TensorDataset(*equal_shard(x_va, y_va, rank, world, seed + 1))
    full_va = TensorDataset(x_va, y_va)
    return (DataLoader(tr, batch_size=per_worker_batch, shuffle=True, drop_last=True),
            DataLoader(va, batch_size=1024),
            DataLoader(full_va, batch_size=4096),
            TensorDataset(x_tr, y_tr))
