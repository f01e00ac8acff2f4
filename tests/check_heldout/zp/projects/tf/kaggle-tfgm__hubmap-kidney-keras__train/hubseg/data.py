"""Tiles were cut offline (256px, 4x downsampled) into one npz per kidney image:
    tiles/<image_id>.npz  with  x: (n, 256, 256, 3) uint8,  y: (n, 256, 256) uint8."""
import glob
import os

import numpy as np
import tensorflow as tf


def load_tiles(tile_dir):
    xs, ys, groups = [], [], []
    for path in sorted(glob.glob(os.path.join(tile_dir, "*.npz"))):
        d = np.load(path)
        xs.append(d["x"])
        ys.append(d["y"] if "y" in d else np.zeros(d["x"].shape[:3], np.uint8))  # test tiles
        groups += [os.path.basename(path)[:-4]] * len(d["x"])
    return np.concatenate(xs), np.concatenate(ys), np.array(groups)


def group_kfold(groups, n_splits=5):
    """GroupKFold: whole kidney images go to one fold (largest groups first)."""
    names, counts = np.unique(groups, return_counts=True)
    load = np.zeros(n_splits, dtype=np.int64)
    fold_of = {}
    for k in np.argsort(-counts, kind="stable"):
        f = int(np.argmin(load))
        fold_of[names[k]] = f
        load[f] += counts[k]
    return np.array([fold_of[g] for g in groups])


def _augment(x, y):
    if tf.random.uniform(()) > 0.5:
        x, y = tf.image.flip_left_right(x), tf.image.flip_left_right(y)
    if tf.random.uniform(()) > 0.5:
        x, y = tf.image.flip_up_down(x), tf.image.flip_up_down(y)
    x = tf.image.random_brightness(x, 0.1)
    return x, y


def make_dataset(x, y, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y[..., None]))
    ds = ds.shard(num_shards, index)
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, tf.cast(b, tf.float32)),
                num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.repeat().batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
