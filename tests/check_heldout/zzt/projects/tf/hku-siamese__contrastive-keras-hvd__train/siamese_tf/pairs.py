import numpy as np


def make_pairs(x, y, n_pairs, seed):
    """Balanced positive/negative pairs; deterministic for a given seed."""
    rng = np.random.default_rng(seed)
    index = {c: np.flatnonzero(y == c) for c in np.unique(y)}
    classes = np.array(list(index))
    left, right, same = [], [], []
    for n in range(n_pairs):
        if n % 2 == 0:
            i, j = rng.choice(index[rng.choice(classes)], 2, replace=False)
            same.append(1.0)
        else:
            a, b = rng.choice(classes, 2, replace=False)
            i, j = rng.choice(index[a]), rng.choice(index[b])
            same.append(0.0)
        left.append(i); right.append(j)
    x = x.astype("float32") / 255.0
    return (x[left], x[right]), np.array(same, dtype="float32")
