"""Rotation-prediction pretext data and labelled data for the probe, one shard per worker."""
import numpy as np
import tensorflow as tf


def _rotations(x):
    x = tf.cast(x, tf.float32) / 255.0
    views = tf.stack([tf.image.rot90(x, k) for k in range(4)])
    return views, tf.range(4)


def pretext_dataset(images, batch_size, rank, world, seed=0):
    ds = tf.data.Dataset.from_tensor_slices(images).shard(world, rank)
    ds = ds.shuffle(8192, seed=seed + rank).repeat()
    ds = ds.map(_rotations, num_parallel_calls=tf.data.AUTOTUNE).unbatch()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def labelled_dataset(images, labels, batch_size, rank=0, world=1, train=True):
    ds = tf.data.Dataset.from_tensor_slices((images, labels.astype(np.int64).reshape(-1)))
    if train:
        ds = ds.shard(world, rank).shuffle(8192).repeat()
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, y))
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
