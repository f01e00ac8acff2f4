import glob
import os

import numpy as np
import tensorflow as tf


def list_machines(data_dir, split):
    return sorted(glob.glob(os.path.join(data_dir, split, "*.npz")))


def count_windows(files):
    return sum(np.load(f)["x"].shape[0] for f in files)


def _load(files, key="x"):
    return np.concatenate([np.load(f)[key] for f in files]).astype("float32")


def autoencoder_dataset(files, batch_size, rank, size, shuffle=True):
    x = _load(files)
    ds = tf.data.Dataset.from_tensor_slices(x).shard(size, rank)
    ds = ds.map(lambda w: (w, w))
    if shuffle:
        ds = ds.shuffle(4096, seed=rank)
    return ds.repeat().batch(batch_size).prefetch(tf.data.AUTOTUNE)


def labelled_arrays(files):
    return _load(files, "x"), np.concatenate([np.load(f)["y"] for f in files])
