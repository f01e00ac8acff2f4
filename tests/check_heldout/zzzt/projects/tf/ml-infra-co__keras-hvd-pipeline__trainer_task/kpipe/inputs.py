import numpy as np
import tensorflow as tf


def synthetic_table(p, seed=11):
    rs = np.random.RandomState(seed)
    x = rs.randn(p.num_rows, p.num_features).astype("float32")
    w = rs.randn(p.num_features, 1).astype("float32")
    y = (x @ w + 0.1 * rs.randn(p.num_rows, 1) > 0).astype("float32")
    return x, y


def train_val(p, rank, world):
    x, y = synthetic_table(p)
    n_val = int(len(x) * p.val_fraction)
    tr = tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:])).shard(world, rank)
    va = tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).shard(world, rank)
    tr = tr.shuffle(10000).batch(p.batch_size, drop_remainder=True).prefetch(2)
    va = va.batch(p.batch_size).prefetch(2)
    return tr, va
