import numpy as np
import tensorflow as tf

from .augment import two_views


def unlabeled_ds(x, size, batch, num_shards, index):
    ds = tf.data.Dataset.from_tensor_slices(x).shard(num_shards, index).shuffle(8192)
    ds = ds.map(lambda im: two_views(im, size), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def labeled_ds(x, y, batch, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y.astype(np.int64))).shard(num_shards, index)
    if training:
        ds = ds.shuffle(8192)
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
