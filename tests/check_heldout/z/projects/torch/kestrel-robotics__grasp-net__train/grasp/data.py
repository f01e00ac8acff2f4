import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset


def load_split(root, split):
    """Depth crops (N x 1 x 64 x 64, float16 on disk) and binary grasp-success labels."""
    blob = np.load(os.path.join(root, f"{split}.npz"))
    x = torch.from_numpy(blob["depth"].astype(np.float32))
    y = torch.from_numpy(blob["success"].astype(np.int64))
    return TensorDataset(x, y)


def shard_indices(n, rank, world, seed=None):
    """Same permutation on every worker (fixed seed), then every world-th index from rank."""
    idx = np.arange(n)
    if seed is not None:
        idx = np.random.default_rng(seed).permutation(n)
    per_rank = n // world  # equal shard sizes -> equal number of steps on every worker
    return idx[rank::world][:per_rank].tolist()


def make_loader(dataset, indices, batch_size, shuffle_seed=None):
    gen = None
    if shuffle_seed is not None:
        gen = torch.Generator().manual_seed(shuffle_seed)
    return DataLoader(Subset(dataset, indices), batch_size=batch_size, shuffle=gen is not None,
                      generator=gen, drop_last=gen is not None)
