"""Time-indexed access to per-variable (T, ny, nx) arrays stored as .npy memmaps."""
import os

import numpy as np
import tensorflow as tf


class FieldStore:
    def __init__(self, root, variables):
        self.arrays = [np.load(os.path.join(root, v + ".npy"), mmap_mode="r") for v in variables]
        self.shape = self.arrays[0].shape
        st = np.load(os.path.join(root, "stats.npz"))
        self.mean = st["mean"].astype(np.float32)
        self.std = st["std"].astype(np.float32)

    def sample(self, t, lead):
        x = np.stack([a[t:t + lead + 1] for a in self.arrays], axis=-1).astype(np.float32)
        return (x - self.mean) / self.std          # (lead+1, ny, nx, V)


def time_index_dataset(t0, t1, lead):
    return tf.data.Dataset.range(t0, t1 - lead)


def to_samples(ds, store, lead, batch_size):
    ny, nx = store.shape[1:]
    nv = len(store.arrays)

    def load(t):
        return store.sample(int(t), lead)

    ds = ds.map(lambda t: tf.numpy_function(load, [t], tf.float32), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda s: tf.ensure_shape(s, [lead + 1, ny, nx, nv]))
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
