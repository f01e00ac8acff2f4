import numpy as np

LAGS = (1, 2, 3, 6, 12, 24)


def make_features(power, wind_speed, wind_dir):
    n = len(power)
    start = max(LAGS)
    cols = [np.roll(power, l)[start:] for l in LAGS]
    cols += [wind_speed[start:], wind_speed[start:] ** 3,
             np.sin(np.deg2rad(wind_dir[start:])), np.cos(np.deg2rad(wind_dir[start:]))]
    X = np.stack(cols, axis=1).astype(np.float32)
    y = power[start:].astype(np.float32)
    assert len(X) == n - start
    return X, y


def blocked_folds(n, k, gap=48):
    """Contiguous time blocks; drop `gap` rows around each validation block."""
    edges = np.linspace(0, n, k + 1).astype(int)
    for i in range(k):
        va = np.arange(edges[i], edges[i + 1])
        keep = (np.arange(n) < edges[i] - gap) | (np.arange(n) >= edges[i + 1] + gap)
        yield np.flatnonzero(keep), va
