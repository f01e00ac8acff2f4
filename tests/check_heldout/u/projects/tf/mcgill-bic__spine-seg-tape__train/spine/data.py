import glob
import os
import random

import numpy as np
import tensorflow as tf


def list_slices(root, split, shuffle=False):
    files = sorted(glob.glob(os.path.join(root, split, "*", "*.npz")))  # <root>/<split>/<subject>/<slice>.npz
    if shuffle:
        random.shuffle(files)  # mix subjects, otherwise a worker gets whole patients only
    return files


def shard_files(files, rank, size):
    return files[rank::size]


def _load(path):
    d = np.load(path.decode())
    img = d["t2w"].astype(np.float32)
    img = (img - img.mean()) / (img.std() + 1e-6)
    return img[..., None], d["cord"].astype(np.float32)[..., None]


def make_ds(files, batch, size, training):
    ds = tf.data.Dataset.from_tensor_slices(files)
    if training:
        ds = ds.shuffle(len(files)).repeat()

    def load(p):
        x, y = tf.numpy_function(_load, [p], [tf.float32, tf.float32])
        x.set_shape([size, size, 1])
        y.set_shape([size, size, 1])
        return x, y

    return ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(batch).prefetch(2)
