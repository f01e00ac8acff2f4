import numpy as np


def class_incremental(y, n_tasks):
    classes = np.unique(y)
    return [c.tolist() for c in np.array_split(classes, n_tasks)]


def partition(indices, rank, world, seed):
    """Same permutation on every worker, cut into `world` equal parts (remainder dropped)."""
    perm = np.random.default_rng(seed).permutation(indices)
    per = len(perm) // world
    return perm[rank * per:(rank + 1) * per]
