import numpy as np
import torch


def load_arrays(path):
    z = np.load(path)
    return z["x_train"], z["y_train"], z["x_val"], z["y_val"]


def partition(x, y, rank, world, seed=0, drop_remainder=True):
    """Same permutation on every rank (shared seed), then rank r takes block r."""
    order = np.random.default_rng(seed).permutation(len(y))
    if drop_remainder:
        order = order[: len(order) // world * world]
    mine = np.array_split(order, world)[rank]
    return x[mine], y[mine]


def batches(x, y, batch_size, shuffle=False, seed=None):
    idx = np.arange(len(y))
    if shuffle:
        np.random.default_rng(seed).shuffle(idx)
    for i in range(0, len(idx) - batch_size + 1 if shuffle else len(idx), batch_size):
        j = idx[i:i + batch_size]
        yield torch.from_numpy(x[j].astype(np.float32)), torch.from_numpy(y[j].astype(np.float32))
