import numpy as np
import tensorflow as tf


def load_split(path):
    with np.load(path) as f:
        return f["x"].astype(np.float32)


def norm_stats(x):
    """Per-channel mean/std over time, lat and lon of the training years."""
    return x.mean(axis=(0, 1, 2)), x.std(axis=(0, 1, 2)) + 1e-6


def make_dataset(x, mean, std, lead, batch, rank=0, world=1, training=True, seed=0):
    x = (x - mean) / std
    inputs, targets = x[:-lead], x[lead:]
    n = len(inputs) // world
    inputs, targets = inputs[rank * n:(rank + 1) * n], targets[rank * n:(rank + 1) * n]
    ds = tf.data.Dataset.from_tensor_slices((inputs, targets))
    if training:
        ds = ds.shuffle(n, seed=seed + rank, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE), n
