import numpy as np
import tensorflow as tf


def arrays(n, seed, size=24, classes=10):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, size, size, 3)).astype("float32")
    y = rng.integers(0, classes, size=n).astype("int64")
    return x, y


def train_dataset(x, y, batch, rank, world):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shuffle(len(x), reshuffle_each_iteration=True)
    ds = ds.shard(world, rank)
    return ds.batch(batch, drop_remainder=True)


def eval_dataset(x, y, batch, rank, world):
    per = len(x) // world
    return tf.data.Dataset.from_tensor_slices((x[rank * per:(rank + 1) * per],
                                               y[rank * per:(rank + 1) * per])).batch(batch)
