import glob
import os

import numpy as np
import tensorflow as tf


def _load_split(data_dir, split):
    files = sorted(glob.glob(os.path.join(data_dir, split, "*.npz")))
    arrays = [np.load(f)["fields"].astype(np.float32) for f in files]
    return np.concatenate(arrays, axis=0)          # (T, H, W, C)


def make_dataset(data_dir, split, batch, horizon, rank, size, shuffle=True):
    """Windows of horizon+1 consecutive states; every rank gets its own slice of windows."""
    fields = _load_split(data_dir, split)
    starts = np.arange(len(fields) - horizon)
    ds = tf.data.Dataset.from_tensor_slices(starts)
    ds = ds.shard(size, rank)
    if shuffle:
        ds = ds.shuffle(4096, reshuffle_each_iteration=True)
    table = tf.constant(fields)
    ds = ds.map(lambda s: table[s:s + horizon + 1], num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
