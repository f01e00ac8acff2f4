import numpy as np


def load_episodes(path, synthetic=0):
    if synthetic:
        rng = np.random.default_rng(11)
        return [(rng.normal(size=(60, 10)).astype("float32"), rng.uniform(-1, 1, (60, 4)).astype("float32"))
                for _ in range(synthetic)]
    z = np.load(path, allow_pickle=True)
    return list(zip(z["obs"], z["act"]))


def to_windows(episodes, window):
    xs, ys = [], []
    for o, a in episodes:
        for t in range(window, len(o) + 1):
            xs.append(o[t - window:t])
            ys.append(a[t - 1])
    return np.asarray(xs, "float32"), np.asarray(ys, "float32")


def worker_slice(x, y, rank, size, seed=0):
    """Same permutation on every worker, contiguous equal-length blocks (remainder dropped)."""
    perm = np.random.default_rng(seed).permutation(len(x))
    per = len(x) // size
    idx = perm[rank * per:(rank + 1) * per]
    return x[idx], y[idx]
