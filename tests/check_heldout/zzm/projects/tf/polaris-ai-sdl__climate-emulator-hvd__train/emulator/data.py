"""Windowed sequences from a (time, features) array of daily climate-model output."""
import numpy as np
import tensorflow as tf


def load_series(path):
    arr = np.load(path).astype(np.float32)
    mean, std = arr.mean(axis=0), arr.std(axis=0) + 1e-6
    return (arr - mean) / std, (mean, std)


def windows(series, history, horizon, batch_size, rank, size, shuffle, seed=0):
    """(history -> horizon) windows; every rank keeps every size-th window starting at its rank."""
    n = len(series) - history - horizon + 1
    starts = np.arange(n)
    starts = starts[: (n // size) * size][rank::size]
    x = np.stack([series[s:s + history] for s in starts])
    y = np.stack([series[s + history:s + history + horizon] for s in starts])
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shuffle:
        ds = ds.shuffle(len(x), seed=seed, reshuffle_each_iteration=True)
    ds = ds.batch(batch_size, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)
    return ds, len(x) // batch_size
