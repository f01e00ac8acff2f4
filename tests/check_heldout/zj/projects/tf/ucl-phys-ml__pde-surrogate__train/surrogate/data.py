import numpy as np
import tensorflow as tf


def load_splits(path, val_fraction, seed=0):
    blob = np.load(path)
    x, y = blob["params"].astype("float32"), blob["fields"].astype("float32")
    idx = np.random.RandomState(seed).permutation(len(x))   # same split on every rank
    n_val = int(len(x) * val_fraction)
    return (x[idx[n_val:]], y[idx[n_val:]]), (x[idx[:n_val]], y[idx[:n_val]])


def train_stream(x, y, batch, rank, world, accum, seed=0):
    """Rank's contiguous block of the training set; the same number of micro-batches on every rank."""
    per_rank = len(x) // world
    n_micro = per_rank // batch // accum * accum
    xs, ys = x[rank * per_rank:(rank + 1) * per_rank], y[rank * per_rank:(rank + 1) * per_rank]
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).shuffle(len(xs), seed=seed + rank)
    return ds.batch(batch, drop_remainder=True).take(n_micro), n_micro
