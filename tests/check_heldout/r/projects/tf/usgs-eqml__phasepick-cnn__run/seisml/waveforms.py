"""Windows of 3-component data: <split>/x (N, 400, 3) float32 (100 Hz, 4 s), <split>/y (N,) int8
(0 = P, 1 = S, 2 = noise). Rows are in random order (shuffled when the file was written)."""
import h5py
import numpy as np


def partition_bounds(n, rank, size):
    """[lo, hi) of this rank's equal-sized block (the old mpi4py code used the same arithmetic)."""
    per_rank = n // size
    return rank * per_rank, (rank + 1) * per_rank


def normalise(x):
    x = x - x.mean(axis=1, keepdims=True)
    return x / (np.abs(x).max(axis=(1, 2), keepdims=True) + 1e-6)


def load_partition(path, split, rank, size):
    with h5py.File(path, "r") as f:
        lo, hi = partition_bounds(f[f"{split}/y"].shape[0], rank, size)
        x = f[f"{split}/x"][lo:hi].astype("float32")
        y = f[f"{split}/y"][lo:hi].astype("int32")
    return normalise(x), y
