import numpy as np
import tensorflow as tf


def _arrays(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 32, 32, 3).astype("float32")
    y = rng.randint(0, 10, size=(n,)).astype("int64")
    return x, y


def train_dataset(batch_size, rank, size, n=8192, seed=7):
    x, y = _arrays(n, seed)
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(num_shards=size, index=rank)
    ds = ds.shuffle(4096, seed=seed + rank, reshuffle_each_iteration=True)
    ds = ds.repeat().batch(batch_size).prefetch(tf.data.AUTOTUNE)
    steps_per_epoch = (n // size) // batch_size
    return ds, steps_per_epoch


def eval_dataset(batch_size, rank, size, n=1024):
    x, y = _arrays(n, 12345)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    ds = ds.batch(batch_size).repeat()
    return ds, max(1, (n // size) // batch_size)
