import h5py
import numpy as np
import tensorflow as tf


def rank_indices(n, val_fraction, rank, size, seed):
    perm = np.random.RandomState(seed).permutation(n)
    n_val = int(n * val_fraction)
    val, train = perm[:n_val], perm[n_val:]
    pt, pv = len(train) // size, len(val) // size
    return np.sort(train[rank * pt:(rank + 1) * pt]), np.sort(val[rank * pv:(rank + 1) * pv])


def h5_dataset(path, indices, batch, shuffle, seed):
    def gen():
        order = np.random.default_rng(seed).permutation(indices) if shuffle else indices
        with h5py.File(path, "r") as f:
            for j in order:
                yield np.log1p(f["cubes"][j].astype(np.float32)), f["params"][j].astype(np.float32)

    with h5py.File(path, "r") as f:
        cube_shape, n_par = f["cubes"].shape[1:], f["params"].shape[1]
    sig = (tf.TensorSpec(cube_shape, tf.float32), tf.TensorSpec((n_par,), tf.float32))
    ds = tf.data.Dataset.from_generator(gen, output_signature=sig)
    return ds.batch(batch, drop_remainder=True).repeat().prefetch(2)


def n_samples(path):
    with h5py.File(path, "r") as f:
        return f["cubes"].shape[0]
