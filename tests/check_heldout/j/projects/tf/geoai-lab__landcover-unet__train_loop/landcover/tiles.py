import glob
import os

import numpy as np
import tensorflow as tf

TILE = 256
BANDS = 4  # R, G, B, NIR


def list_tiles(root, split):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    if not files:
        raise FileNotFoundError(os.path.join(root, split))
    return files


def _read(path):
    z = np.load(path.decode())
    img = z["image"].astype(np.float32) / 10000.0
    return img, z["mask"].astype(np.int32)


def _augment(img, mask):
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    img, mask = tf.image.rot90(img, k), tf.image.rot90(mask[..., None], k)[..., 0]
    flip = tf.random.uniform([]) < 0.5
    img = tf.cond(flip, lambda: tf.image.flip_left_right(img), lambda: img)
    mask = tf.cond(flip, lambda: tf.reverse(mask, [1]), lambda: mask)
    return img, mask


def load_split(files, batch_size, num_shards=1, shard_index=0, training=False):
    ds = tf.data.Dataset.from_tensor_slices(files).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(2048).repeat()
    ds = ds.map(lambda f: tf.numpy_function(_read, [f], (tf.float32, tf.int32)), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda i, m: (tf.ensure_shape(i, (TILE, TILE, BANDS)), tf.ensure_shape(m, (TILE, TILE))))
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
