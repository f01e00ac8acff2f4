import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def synthetic_m4(n_series, length, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    trend = rng.normal(0, 0.05, (n_series, 1)) * t
    season = rng.uniform(0, 3, (n_series, 1)) * np.sin(2 * np.pi * t / 12 + rng.uniform(0, 6, (n_series, 1)))
    return (100 + trend + season + rng.normal(0, 1, (n_series, length))).astype(np.float32)


def make_windows(series, lookback, horizon, holdout):
    """Training windows from each series' history; the last `holdout` points are the test target."""
    xs, ys = [], []
    for s in series:
        hist = s[:-holdout]
        scale = np.abs(hist).mean() + 1e-6           # per-series level from the training part
        for end in range(lookback, len(hist) - horizon + 1, 3):
            xs.append(hist[end - lookback:end] / scale)
            ys.append(hist[end:end + horizon] / scale)
    return np.asarray(xs), np.asarray(ys)


def test_set(series, lookback, horizon):
    hist, fut = series[:, :-horizon], series[:, -horizon:]
    scale = np.abs(hist).mean(1, keepdims=True) + 1e-6
    return hist[:, -lookback:] / scale, fut / scale


def train_dataset(cfg):
    series = synthetic_m4(cfg.n_series, cfg.series_len)
    x, y = make_windows(series, cfg.lookback, cfg.horizon, cfg.horizon)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shuffle(len(x), reshuffle_each_iteration=True)
    ds = ds.shard(hvd.size(), hvd.rank())
    return ds.repeat().batch(cfg.batch_size, drop_remainder=True), series
