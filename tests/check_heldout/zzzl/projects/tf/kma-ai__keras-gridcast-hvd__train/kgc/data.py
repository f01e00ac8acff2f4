import numpy as np
import tensorflow as tf


def open_fields(path):
    return np.load(path, mmap_mode="r")


def channel_stats(fields, t1, every=50):
    sub = np.asarray(fields[0:t1:every], dtype=np.float64)
    return sub.mean(axis=(0, 1, 2)).astype(np.float32), (sub.std(axis=(0, 1, 2)) + 1e-6).astype(np.float32)


def dataset(fields, t0, t1, rollout, batch, stats, num_shards, shard_index, training):
    mean, std = stats
    _, nlat, nlon, nc = fields.shape
    n = (t1 - rollout - t0) // num_shards * num_shards

    def load(t):
        t = int(t)
        x = (np.asarray(fields[t]) - mean) / std
        y = (np.asarray(fields[t + 1:t + 1 + rollout]) - mean) / std
        return x.astype(np.float32), y.astype(np.float32)

    def tf_load(t):
        x, y = tf.numpy_function(load, [t], [tf.float32, tf.float32])
        x.set_shape([nlat, nlon, nc])
        y.set_shape([rollout, nlat, nlon, nc])
        return x, y

    ds = tf.data.Dataset.range(t0, t0 + n).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.map(tf_load, num_parallel_calls=tf.data.AUTOTUNE).batch(batch, drop_remainder=True).prefetch(2)
