"""Tiles of (image, mask) stored in two .npy arrays per split."""
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_split(root, split):
    x = np.load(os.path.join(root, f"{split}_images.npy")).astype(np.float32)
    y = np.load(os.path.join(root, f"{split}_masks.npy")).astype(np.float32)
    if x.ndim == 3:
        x = x[..., None]
    if y.ndim == 3:
        y = y[..., None]
    return x / max(float(x.max()), 1.0), y


def make_dataset(x, y, batch_size, training, seed=0):
    """Even split of the samples over ranks (the remainder is dropped so that step counts match)."""
    n = (len(x) // hvd.size()) * hvd.size()
    ds = tf.data.Dataset.from_tensor_slices((x[:n], y[:n])).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(2048, seed=seed + hvd.rank())
        ds = ds.map(lambda a, b: _flip(a, b), num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.batch(batch_size, drop_remainder=True)
    return ds.prefetch(tf.data.AUTOTUNE), (n // hvd.size()) // batch_size


def _flip(img, mask):
    if tf.random.uniform(()) > 0.5:
        img, mask = tf.image.flip_left_right(img), tf.image.flip_left_right(mask)
    return img, mask
