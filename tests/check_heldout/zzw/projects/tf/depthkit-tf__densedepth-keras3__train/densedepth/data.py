import glob
import os

import numpy as np
import tensorflow as tf


def _load(path):
    d = np.load(path.decode())
    return d["rgb"].astype(np.float32) / 255.0, d["depth"].astype(np.float32)[..., None]


def nyu_dataset(root, split, batch, rank, world, shuffle_buffer=256, seed=42):
    """Sorted file list -> this worker's shard -> decode -> batches. Same number of batches on every worker."""
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    per_worker = len(files) // world
    files = files[:per_worker * world]
    ds = tf.data.Dataset.from_tensor_slices(files).shard(world, rank)
    if split == "train":
        ds = ds.shuffle(shuffle_buffer, seed=seed + rank, reshuffle_each_iteration=True)
    ds = ds.map(lambda p: tf.numpy_function(_load, [p], [tf.float32, tf.float32]),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, [240, 320, 3]),
                              tf.image.resize(tf.ensure_shape(y, [480, 640, 1]), [120, 160])))
    if split == "train":
        ds = ds.map(lambda x, y: tf.cond(tf.random.uniform([]) < 0.5,
                                         lambda: (tf.image.flip_left_right(x), tf.image.flip_left_right(y)),
                                         lambda: (x, y)))
        ds = ds.repeat()
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE), per_worker // batch
