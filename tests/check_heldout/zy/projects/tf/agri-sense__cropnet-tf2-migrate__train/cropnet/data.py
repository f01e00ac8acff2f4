"""Sentinel-2 pixel time series (T x bands) -> crop type."""
import numpy as np
import tensorflow as tf


def load_npz(path):
    with np.load(path) as f:
        x = f["x"].astype(np.float32)          # (n, T, bands), reflectance * 1e4
        y = f["y"].astype(np.int64)
    return x / 1e4, y


def worker_split(n, rank, size):
    """Indices of this worker: a random permutation split round-robin."""
    perm = np.random.permutation(n)
    return perm[rank::size][:n // size]


def train_dataset(path, batch_size, rank, size):
    x, y = load_npz(path)
    idx = worker_split(len(x), rank, size)
    ds = tf.data.Dataset.from_tensor_slices((x[idx], y[idx]))
    return ds.shuffle(len(idx)).batch(batch_size, drop_remainder=True).prefetch(2), len(idx)


def eval_dataset(path, batch_size):
    x, y = load_npz(path)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
