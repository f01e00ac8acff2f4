import numpy as np
import tensorflow as tf


def load(n_train=24000, n_test=4000, dim=48, classes=6):
    rng = np.random.default_rng(2024)
    w = rng.normal(size=(dim, classes)).astype("float32")
    x = rng.normal(size=(n_train + n_test, dim)).astype("float32")
    y = (x @ w + 0.5 * rng.normal(size=(n_train + n_test, classes))).argmax(1).astype("int32")
    return (x[:n_train], y[:n_train]), (x[n_train:], y[n_train:])


def index_pipeline(arrays, batch, rank, world, seed, train=True):
    """Shard the index range, then gather: ranks own disjoint, equal-sized index sets."""
    x, y = arrays
    n = (len(x) // world) * world
    idx = tf.data.Dataset.range(n).shard(world, rank)
    if train:
        idx = idx.shuffle(n // world, seed=seed + rank)
    x, y = tf.constant(x), tf.constant(y)
    return idx.batch(batch, drop_remainder=train).map(lambda i: (tf.gather(x, i), tf.gather(y, i)))
