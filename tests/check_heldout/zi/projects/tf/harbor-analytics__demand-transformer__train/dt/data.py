import numpy as np


def load_panel(path):
    """npz with `sales` (stores, days) and `covariates` (stores, days, k)."""
    z = np.load(path)
    return z["sales"].astype(np.float32), z["covariates"].astype(np.float32)


def make_windows(sales, cov, context, horizon, start, stop):
    """All (store, t) windows whose target span lies in [start, stop)."""
    xs, ys = [], []
    for s in range(sales.shape[0]):
        scale = sales[s, :start].mean() + 1.0
        for t in range(max(context, start - horizon), stop - horizon + 1):
            hist = sales[s, t - context:t, None] / scale
            xs.append(np.concatenate([hist, cov[s, t - context:t]], -1))
            ys.append(sales[s, t:t + horizon] / scale)
    return np.stack(xs), np.stack(ys)
