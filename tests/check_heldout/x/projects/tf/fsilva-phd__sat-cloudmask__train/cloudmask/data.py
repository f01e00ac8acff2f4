import numpy as np


def load_patches(path):
    """npz with x_{train,val,test}: (N, 64, 64, bands) reflectance, y_*: (N, 64, 64, 1) cloud mask."""
    with np.load(path) as z:
        return tuple((z[f"x_{s}"].astype("float32"), z[f"y_{s}"].astype("float32"))
                     for s in ("train", "val", "test"))


def rank_slice(x, y, rank, size):
    """Every size-th patch, after cutting the split to a multiple of size: equal, disjoint parts."""
    n = len(x) - len(x) % size
    return x[rank:n:size], y[rank:n:size]
