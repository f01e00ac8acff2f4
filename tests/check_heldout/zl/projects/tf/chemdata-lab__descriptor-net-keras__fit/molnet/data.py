"""SOAP descriptors + targets stored in HDF5 ('X': (N, D) float32, target datasets (N,))."""
import h5py
import numpy as np
import tensorflow as tf


def read_h5(path, target):
    with h5py.File(path, "r") as f:
        return f["X"][...].astype(np.float32), f[target][...].astype(np.float32).reshape(-1, 1)


def standardize(train_x, *others):
    mu, sd = train_x.mean(0), train_x.std(0) + 1e-6
    return [(a - mu) / sd for a in (train_x,) + others]


def partition(n, rank, size, seed=17):
    """Identical permutation everywhere, then a strided slice; all ranks get n // size items."""
    perm = np.random.default_rng(seed).permutation(n)
    return perm[rank::size][: n // size]


def to_dataset(x, y, batch, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(len(x), reshuffle_each_iteration=True).repeat()
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
