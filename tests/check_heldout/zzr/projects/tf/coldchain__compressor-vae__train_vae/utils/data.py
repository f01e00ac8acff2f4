import glob
import os

import numpy as np
import tensorflow as tf


def read_units(data_dir, pattern="unit_*.csv"):
    """Each refrigeration unit logs one CSV: timestamp, then sensor columns."""
    arrays = []
    for path in sorted(glob.glob(os.path.join(data_dir, pattern))):
        arr = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float32)
        arrays.append(arr[:, 1:])
    return arrays


def standardize(train, *others):
    mean, std = train.mean(0), train.std(0) + 1e-6
    return [(a - mean) / std for a in (train,) + others]


def make_dataset(x, batch_size, shard=None, shuffle=False):
    if shard is not None:
        x = x[: len(x) // shard[0] * shard[0]]      # same number of rows on every worker
    ds = tf.data.Dataset.from_tensor_slices(x)
    if shard is not None:
        ds = ds.shard(*shard)
    if shuffle:
        ds = ds.shuffle(10000)
    return ds.batch(batch_size, drop_remainder=shuffle)
