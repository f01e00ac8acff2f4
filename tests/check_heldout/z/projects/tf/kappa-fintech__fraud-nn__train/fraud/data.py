import os

import numpy as np


def load_split(snapshot, split):
    """Feature matrix and label vector of one split of the snapshot (already standardised)."""
    with np.load(os.path.join(snapshot, f"{split}.npz")) as z:
        x = z["features"].astype("float32")
        y = z["is_fraud"].astype("float32")
    bad = ~np.isfinite(x)
    if bad.any():
        x[bad] = 0.0
    return x, y


def positive_rate(y):
    return float(np.mean(y)) if len(y) else 0.0
