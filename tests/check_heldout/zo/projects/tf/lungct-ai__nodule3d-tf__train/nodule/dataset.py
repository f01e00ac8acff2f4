"""LUNA16 candidate cubes stored per subset: subsetK/cubes.npy (n, C, C, C) int16 HU, subsetK/labels.npy."""
import os

import numpy as np
import tensorflow as tf


def load_subsets(data_dir, subsets):
    xs, ys = [], []
    for k in subsets:
        d = os.path.join(data_dir, f"subset{k}")
        xs.append(np.load(os.path.join(d, "cubes.npy")))
        ys.append(np.load(os.path.join(d, "labels.npy")))
    return np.concatenate(xs), np.concatenate(ys).astype(np.float32)


def hu_window(x, lo=-1000.0, hi=400.0):
    x = tf.cast(x, tf.float32)
    return tf.clip_by_value((x - lo) / (hi - lo), 0.0, 1.0)


def augment(x, y):
    for axis in range(3):
        x = tf.cond(tf.random.uniform([]) < 0.5, lambda: tf.reverse(x, [axis]), lambda: x)
    x = x + tf.random.normal(tf.shape(x), stddev=0.02)
    return x, y


def make_dataset(x, y, batch_size, rank, world, training, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shard(world, rank)
    if training:
        ds = ds.shuffle(4096, seed=seed + rank).repeat()
    ds = ds.map(lambda a, b: (hu_window(a)[..., None], b), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
