import glob
import os

import h5py
import numpy as np
import tensorflow as tf

from .logger import log


def load_modelnet(root, split):
    pts, lbl = [], []
    for f in sorted(glob.glob(os.path.join(root, f"ply_data_{split}*.h5"))):
        with h5py.File(f, "r") as h:
            pts.append(h["data"][:].astype(np.float32))
            lbl.append(h["label"][:].reshape(-1).astype(np.int32))
    pts, lbl = np.concatenate(pts), np.concatenate(lbl)
    log.info("%s: %d shapes", split, len(lbl))
    return pts, lbl


def _augment(p, y):
    scale = tf.random.uniform([1, 3], 2.0 / 3.0, 1.5)
    shift = tf.random.uniform([1, 3], -0.2, 0.2)
    return p * scale + shift, y


def train_pipeline(points, labels, batch, num_points, rank, world):
    ds = tf.data.Dataset.from_tensor_slices((points[:, :num_points], labels))
    ds = ds.shuffle(len(labels), reshuffle_each_iteration=False).shard(world, rank)
    ds = ds.shuffle(2048).map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)


def test_pipeline(points, labels, batch, num_points, rank, world):
    ds = tf.data.Dataset.from_tensor_slices((points[:, :num_points], labels)).shard(world, rank)
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
