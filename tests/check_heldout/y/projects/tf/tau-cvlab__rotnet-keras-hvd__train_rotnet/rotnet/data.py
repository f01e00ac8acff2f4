import numpy as np


def rotate4(x):
    """Each image 4 times (0, 90, 180, 270 degrees) with the rotation index as label."""
    xs = [np.rot90(x, k, axes=(1, 2)) for k in range(4)]
    ys = [np.full(len(x), k, dtype=np.int64) for k in range(4)]
    return np.concatenate(xs), np.concatenate(ys)


def _slice(x, rank, world, rng):
    idx = rng.permutation(len(x))           # same permutation on every worker (same seed)
    per = len(x) // world                   # equal slices -> equal steps per epoch
    return x[idx[rank * per:(rank + 1) * per]]


def load_rotation_data(path, rank, world, seed=0):
    with np.load(path) as f:
        train, val = f["train"], f["val"]
    rng = np.random.default_rng(seed)
    train = _slice(train, rank, world, rng)
    val = _slice(val, rank, world, rng)
    x_tr, y_tr = rotate4(train.astype("float32") / 255.0)
    x_va, y_va = rotate4(val.astype("float32") / 255.0)
    return (x_tr, y_tr), (x_va, y_va)
