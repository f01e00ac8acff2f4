import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset


def make_windows(cfg):
    xs, ys = [], []
    for path in sorted(glob.glob(os.path.join(cfg.series_dir, "*.npy"))):
        s = np.load(path).astype(np.float32)
        s = (s - s.mean()) / (s.std() + 1e-6)
        for t in range(cfg.history, len(s) - cfg.horizon + 1, cfg.horizon):
            xs.append(s[t - cfg.history:t])
            ys.append(s[t:t + cfg.horizon])
    return TensorDataset(torch.from_numpy(np.stack(xs))[:, None, :], torch.from_numpy(np.stack(ys)))


def equal_partition(indices, rank, size):
    """Contiguous, equal-sized chunk of `indices` for `rank` (the remainder is dropped)."""
    per_rank = len(indices) // size
    return indices[rank * per_rank:(rank + 1) * per_rank]


def build_loaders(cfg, rank, size):
    ds = make_windows(cfg)
    order = np.random.default_rng(cfg.seed).permutation(len(ds))   # same permutation on every worker
    n_val = int(len(ds) * cfg.val_fraction)
    val_idx, train_idx = order[:n_val], order[n_val:]
    batch = cfg.global_batch_size // size
    train = Subset(ds, equal_partition(train_idx, rank, size).tolist())
    val = Subset(ds, equal_partition(val_idx, rank, size).tolist())
    return (DataLoader(train, batch_size=batch, shuffle=True, drop_last=True, num_workers=cfg.num_workers),
            DataLoader(val, batch_size=batch, shuffle=False, num_workers=cfg.num_workers))
