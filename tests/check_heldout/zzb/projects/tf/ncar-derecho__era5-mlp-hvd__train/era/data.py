import os
from dataclasses import dataclass

import numpy as np
import tensorflow as tf


@dataclass
class NormStats:
    x_mean: np.ndarray
    x_std: np.ndarray
    y_mean: np.ndarray
    y_std: np.ndarray

    def save(self, path):
        np.savez(path, **self.__dict__)


def _synthetic(n=50000, nin=60, nout=30, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, nin)).astype("float32")
    w = rng.normal(size=(nin, nout)).astype("float32") / np.sqrt(nin)
    y = np.tanh(x @ w) + 0.05 * rng.normal(size=(n, nout)).astype("float32")
    return x, y.astype("float32")


def load_columns(path, val_frac=0.1):
    if os.path.exists(path):
        d = np.load(path)
        x, y = d["inputs"].astype("float32"), d["outputs"].astype("float32")
    else:
        x, y = _synthetic()
    n_val = int(len(x) * val_frac)
    x, xv, y, yv = x[n_val:], x[:n_val], y[n_val:], y[:n_val]
    stats = NormStats(x.mean(0), x.std(0) + 1e-6, y.mean(0), y.std(0) + 1e-6)
    norm = lambda a, m, s: (a - m) / s
    return ((norm(x, stats.x_mean, stats.x_std), norm(y, stats.y_mean, stats.y_std)),
            (norm(xv, stats.x_mean, stats.x_std), norm(yv, stats.y_mean, stats.y_std)), stats)


def make_dataset(x, y, batch_size, shard=None, training=True):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shard is not None:
        num_shards, index = shard
        ds = ds.shard(num_shards, index)
    if training:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
