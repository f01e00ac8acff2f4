import numpy as np
import tensorflow as tf


def load_series(csv_path=None, hours=24 * 365 * 2):
    if csv_path:
        return np.loadtxt(csv_path, delimiter=",", skiprows=1, usecols=1, dtype=np.float32)
    t = np.arange(hours, dtype=np.float32)
    rng = np.random.default_rng(11)
    return (1000 + 200 * np.sin(2 * np.pi * t / 24) + 80 * np.sin(2 * np.pi * t / (24 * 7))
            + rng.normal(0, 20, hours)).astype(np.float32)


def windows(series, lookback, horizon):
    n = len(series) - lookback - horizon + 1
    idx = np.arange(lookback)[None, :] + np.arange(n)[:, None]
    x = series[idx][..., None]
    y = series[np.arange(horizon)[None, :] + np.arange(n)[:, None] + lookback]
    return x, y


def build_datasets(series, cluster, lookback=168, horizon=24, batch_size=128, val_frac=0.15):
    mu, sigma = series.mean(), series.std()
    series = (series - mu) / sigma
    split = int(len(series) * (1 - val_frac))
    xtr, ytr = windows(series[:split], lookback, horizon)
    xva, yva = windows(series[split - lookback:], lookback, horizon)
    train = tf.data.Dataset.from_tensor_slices((xtr, ytr)).shard(cluster.size, cluster.rank)
    val = tf.data.Dataset.from_tensor_slices((xva, yva)).shard(cluster.size, cluster.rank)
    steps = len(xtr) // cluster.size // batch_size
    train = train.shuffle(4096, seed=cluster.rank).batch(batch_size, drop_remainder=True).repeat()
    val_steps = len(xva) // cluster.size // batch_size
    val = val.batch(batch_size, drop_remainder=True).take(val_steps)
    return train, val, steps, (mu, sigma)
