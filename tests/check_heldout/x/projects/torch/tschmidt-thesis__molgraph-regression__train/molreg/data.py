import numpy as np
import torch


def load_split(path, split, rank, size, seed=0):
    """This rank's part of a split: a fixed permutation (same seed everywhere), truncated to a
    multiple of `size`, then every size-th molecule -> equal, disjoint shards."""
    with np.load(path) as z:
        x, y = z[f"x_{split}"], z[f"y_{split}"]
    perm = np.random.RandomState(seed).permutation(len(x))
    perm = perm[: len(perm) - len(perm) % size]
    mine = perm[rank::size]
    return torch.from_numpy(x[mine].astype(np.float32)), torch.from_numpy(y[mine].astype(np.float32))


def rank_batches(x, y, batch_size, shuffle=False, seed=0):
    idx = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed)) if shuffle else torch.arange(len(x))
    for i in range(0, len(idx) - batch_size + 1 if shuffle else len(idx), batch_size):
        j = idx[i:i + batch_size]
        yield x[j], y[j]
