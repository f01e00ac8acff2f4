"""Tile pipeline: every tile is an .npz with `image` (H, W, C) float16 and `mask` (H, W) uint8."""
import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def list_tiles(root, split):
    return sorted(glob.glob(os.path.join(root, split, "*.npz")))


def _read_tile(path):
    with np.load(path.decode() if isinstance(path, bytes) else path) as z:
        return z["image"].astype("float32"), z["mask"].astype("int32")


def tile_dataset(files, batch_size, tile, channels, training):
    ds = tf.data.Dataset.from_tensor_slices(files)
    # one shard per GPU
    ds = ds.shard(hvd.local_size(), hvd.local_rank())
    if training:
        ds = ds.shuffle(len(files), seed=17, reshuffle_each_iteration=True).repeat()
    ds = ds.map(
        lambda p: tf.numpy_function(_read_tile, [p], [tf.float32, tf.int32]),
        num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda im, m: (tf.ensure_shape(im, [tile, tile, channels]),
                               tf.ensure_shape(m, [tile, tile])))
    if training:
        ds = ds.map(_flip, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def _flip(image, mask):
    if tf.random.uniform(()) > 0.5:
        image, mask = tf.image.flip_left_right(image), tf.reverse(mask, axis=[1])
    return image, mask
