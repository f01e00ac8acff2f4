import glob
import os

import numpy as np
import tensorflow as tf


def _load(path):
    d = np.load(path.decode() if isinstance(path, bytes) else path)
    return d["image"].astype(np.float32), d["label"].astype(np.int32)


def _read(path, size):
    img, lab = tf.numpy_function(_load, [path], [tf.float32, tf.int32])
    img.set_shape([size, size, 4])
    lab.set_shape([size, size])
    return img, lab


def _augment(img, lab):
    flip = tf.random.uniform([]) < 0.5
    img = tf.cond(flip, lambda: tf.reverse(img, [1]), lambda: img)
    lab = tf.cond(flip, lambda: tf.reverse(lab, [1]), lambda: lab)
    return img, lab


def make_dataset(root, split, batch_size, num_shards, shard_index, size=160, training=False):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    n = len(files)
    ds = tf.data.Dataset.from_tensor_slices(files).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True)
    ds = ds.map(lambda p: _read(p, size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE).repeat()
    ds = ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
    return ds, n
