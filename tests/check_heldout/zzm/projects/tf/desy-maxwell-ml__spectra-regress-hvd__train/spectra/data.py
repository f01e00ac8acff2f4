import h5py
import numpy as np
import tensorflow as tf


def read_h5(path, key_x="spectra", key_y="params"):
    with h5py.File(path, "r") as f:
        return f[key_x][:].astype(np.float32), f[key_y][:].astype(np.float32)


def sharded_dataset(x, y, batch_size, rank, size, shuffle=True, seed=1):
    n = (len(x) // size) * size
    ds = tf.data.Dataset.from_tensor_slices((x[:n], y[:n])).shard(size, rank)
    if shuffle:
        ds = ds.shuffle(min(n // size, 20000), seed=seed)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
