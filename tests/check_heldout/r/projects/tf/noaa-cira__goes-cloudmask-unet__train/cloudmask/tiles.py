"""Tiles are stored as <split>_x.npy (N, 256, 256, C) float16 reflectances/brightness temperatures
and <split>_y.npy (N, 256, 256) uint8 (1 = cloudy)."""
import os

import numpy as np
import tensorflow as tf

from .augment import augment

CHANNELS = ("C02", "C05", "C07", "C11", "C13", "C14", "C15")
# per-channel normalisation computed once over 2019 (see notebooks/stats.ipynb)
MEAN = np.array([0.21, 0.12, 280.3, 262.1, 265.8, 264.4, 261.2], dtype="float32")
STD = np.array([0.19, 0.11, 18.6, 21.3, 23.0, 23.4, 22.1], dtype="float32")


def _load(folder, split):
    x = np.load(os.path.join(folder, f"{split}_x.npy"), mmap_mode="r")
    y = np.load(os.path.join(folder, f"{split}_y.npy"), mmap_mode="r")
    return x, y


def dataset(folder, split, batch_size, rank, size, seed=17):
    x, y = _load(folder, split)
    n = len(y)

    def gen():
        for i in range(rank, n, size):
            xi = (np.asarray(x[i], dtype="float32") - MEAN) / STD
            yield xi, np.asarray(y[i], dtype="float32")[..., None]

    spec = (tf.TensorSpec(x.shape[1:], tf.float32), tf.TensorSpec(y.shape[1:] + (1,), tf.float32))
    ds = tf.data.Dataset.from_generator(gen, output_signature=spec)
    if split == "train":
        ds = ds.shuffle(256, seed=seed + rank)
        ds = augment(ds, base_seed=seed + rank)
    ds = ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    return ds, n
