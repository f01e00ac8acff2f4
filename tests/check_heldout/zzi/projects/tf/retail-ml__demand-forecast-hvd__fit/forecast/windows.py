import numpy as np
import tensorflow as tf


def make_windows(series, window, horizon):
    """series: (T, n_stores) -> X (N, window*n_stores), Y (N, horizon*n_stores)"""
    xs, ys = [], []
    for start in range(0, len(series) - window - horizon + 1):
        xs.append(series[start:start + window].reshape(-1))
        ys.append(series[start + window:start + window + horizon].reshape(-1))
    return np.asarray(xs, "float32"), np.asarray(ys, "float32")


def train_val_split(x, y, val_fraction):
    cut = int(len(x) * (1.0 - val_fraction))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])


def to_dataset(x, y, batch_size, num_shards, shard_index, shuffle):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, shard_index)
    if shuffle:
        ds = ds.shuffle(len(x) // num_shards + 1).repeat()
    return ds.batch(batch_size, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)
