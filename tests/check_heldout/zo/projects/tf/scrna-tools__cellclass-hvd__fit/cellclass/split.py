import numpy as np


def stratified_kfold(y, n_splits=5, seed=0):
    """Yield (train_idx, val_idx) with every class spread evenly over the folds."""
    rng = np.random.RandomState(seed)
    fold_of = np.empty(len(y), np.int64)
    for c in np.unique(y):
        idx = np.where(y == c)[0]
        rng.shuffle(idx)
        fold_of[idx] = np.arange(len(idx)) % n_splits
    for k in range(n_splits):
        yield np.where(fold_of != k)[0], np.where(fold_of == k)[0]


def worker_slice(idx, rank, world, seed=0):
    """Shuffle with a shared seed, trim to a multiple of world, keep this worker's slice."""
    idx = np.random.RandomState(seed).permutation(idx)
    idx = idx[: len(idx) // world * world]
    return idx[rank::world]
