import glob
import os

import numpy as np
import tensorflow as tf


def _load_pair(path):
    d = np.load(path.decode())
    return d["image"].astype(np.float32) / 255.0, d["mask"].astype(np.float32)[..., None]


def tile_files(root, split):
    return sorted(glob.glob(os.path.join(root, split, "*.npz")))


def make_dataset(files, batch, rank, size, img_size, training, seed):
    ds = tf.data.Dataset.from_tensor_slices(files).shard(size, rank)
    if training:
        ds = ds.shuffle(len(files), seed=seed, reshuffle_each_iteration=True)

    def load(p):
        x, y = tf.numpy_function(_load_pair, [p], [tf.float32, tf.float32])
        x.set_shape([img_size, img_size, 3])
        y.set_shape([img_size, img_size, 1])
        return x, y

    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_brightness(x, 0.1), y)).repeat()
    # drop_remainder everywhere: every worker runs the same number of equal batches
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
