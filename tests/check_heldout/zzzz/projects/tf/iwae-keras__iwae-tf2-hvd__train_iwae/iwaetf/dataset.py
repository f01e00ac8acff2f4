import numpy as np


def load(path, rank, size):
    d = np.load(path)
    x_tr = d["train"].reshape(-1, 784).astype(np.float32)
    x_te = d["test"].reshape(-1, 784).astype(np.float32)
    # split train into equal contiguous parts, drop the tail so every worker has the same count
    n = len(x_tr) // size
    x_tr = x_tr[rank * n:(rank + 1) * n]
    n_te = len(x_te) // size
    x_te = x_te[rank * n_te:(rank + 1) * n_te]
    return x_tr, x_te


def batches(x, bs, rng):
    idx = rng.permutation(len(x))
    for i in range(len(x) // bs):
        yield np.random.binomial(1, x[idx[i * bs:(i + 1) * bs]]).astype(np.float32)
