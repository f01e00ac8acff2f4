import numpy as np
import tensorflow as tf


def _prep(n_bits):
    n_bins = 2.0 ** n_bits

    def f(x):
        x = tf.cast(x, tf.float32)
        if n_bits < 8:
            x = tf.floor(x / 2 ** (8 - n_bits))
        x = x / n_bins - 0.5
        x = x + tf.random.uniform(tf.shape(x), 0, 1.0 / n_bins)
        return x, tf.zeros([])  # dummy target, the model outputs its own nll
    return f


def train_dataset(path, batch_size, n_bits, rank, size):
    x = np.load(path)
    ds = tf.data.Dataset.from_tensor_slices(x)
    ds = ds.shard(num_shards=size, index=rank)
    ds = ds.shuffle(10000).map(_prep(n_bits), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE), len(x)


def val_dataset(path, batch_size, n_bits, rank, size):
    x = np.load(path)
    ds = tf.data.Dataset.from_tensor_slices(x).shard(size, rank)
    return ds.map(_prep(n_bits)).batch(batch_size).prefetch(2)


def first_batch(path, batch_size, n_bits):
    x = np.load(path, mmap_mode="r")[:batch_size]
    return _prep(n_bits)(tf.constant(x))[0]
