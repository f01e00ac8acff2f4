import os

import numpy as np


def load_npz(root, split):
    with np.load(os.path.join(root, f"{split}.npz")) as z:
        x = z["signals"].astype("float32")        # N x 5000 x 12
        y = z["rhythm"].astype("int64")
    x = (x - x.mean(axis=(1, 2), keepdims=True)) / (x.std(axis=(1, 2), keepdims=True) + 1e-6)
    return x, y


def worker_slice(x, y, rank, size, seed=3):
    """Shared shuffle, then an equal contiguous block per worker (remainder dropped)."""
    perm = np.random.default_rng(seed).permutation(len(x))
    per = len(x) // size
    mine = perm[rank * per:(rank + 1) * per]
    return x[mine], y[mine]


LEADS = ("I", "II", "III", "aVR", "aVL", "aVF", "V1", "V2", "V3", "V4", "V5", "V6")


def class_weights(y, smoothing=0.1):
    """Inverse-frequency weights over the FULL training labels (same dict on every worker)."""
    counts = np.bincount(y).astype("float64")
    freq = counts / counts.sum()
    w = 1.0 / (freq + smoothing)
    w = w / w.mean()
    return {int(c): float(w[c]) for c in range(len(w))}


def describe(y, name):
    counts = np.bincount(y)
    parts = ", ".join(f"{c}:{n}" for c, n in enumerate(counts))
    return f"{name}: {len(y)} records ({parts})"
