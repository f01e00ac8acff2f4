import numpy as np
import tensorflow as tf


def load(cfg):
    d = np.load(cfg.data)
    return d["x_train"], d["y_train"].astype("int64"), d["x_test"], d["y_test"].astype("int64")


def make_train(x, y, idx, batch_size, rank, world, seed):
    ds = tf.data.Dataset.from_tensor_slices((x[idx], y[idx]))
    ds = ds.shard(world, rank).shuffle(len(idx) // world + 1, seed=seed).repeat()
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(2)


def make_val(x, y, batch_size=256):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    return ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b)).batch(batch_size)
