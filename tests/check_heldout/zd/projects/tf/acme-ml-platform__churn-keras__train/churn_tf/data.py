import numpy as np
import tensorflow as tf


def load_splits(uri):
    blob = np.load(uri)
    x, y = blob["x"].astype("float32"), blob["y"].astype("float32")
    n_val = len(x) // 10
    return (x[n_val:], y[n_val:]), (x[:n_val], y[:n_val])


def to_dataset(x, y, batch_size, shard_index, num_shards, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(10_000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
