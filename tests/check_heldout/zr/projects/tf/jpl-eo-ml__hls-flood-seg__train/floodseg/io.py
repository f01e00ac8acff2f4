"""HLS (Harmonized Landsat-Sentinel) 6-band 256x256 chips with water masks, one .npz per chip
(`bands` uint16 (6, 256, 256), `mask` int8 (256, 256): 1 water, 0 land, -1 no data/cloud)."""
import glob
import os

import numpy as np
import tensorflow as tf

HLS_MEAN = np.array([0.033, 0.057, 0.058, 0.236, 0.181, 0.109], "float32")
HLS_STD = np.array([0.021, 0.025, 0.039, 0.084, 0.081, 0.071], "float32")


def _read(path):
    d = np.load(path.decode())
    x = (np.transpose(d["bands"], (1, 2, 0)).astype("float32") * 1e-4 - HLS_MEAN) / HLS_STD
    return x, d["mask"].astype("int32")


def chip_dataset(root, split, batch, num_shards, shard, training):
    paths = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    ds = tf.data.Dataset.from_tensor_slices(paths)
    if training:
        ds = ds.shuffle(len(paths)).shard(num_shards, shard).repeat()
    else:
        ds = ds.shard(num_shards, shard)
    ds = ds.map(lambda p: tf.numpy_function(_read, [p], (tf.float32, tf.int32)),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, [256, 256, 6]), tf.ensure_shape(y, [256, 256])))
    if training:
        ds = ds.map(_flip)
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE), len(paths)


def _flip(x, y):
    if tf.random.uniform([]) > 0.5:
        x, y = x[:, ::-1], y[:, ::-1]
    return x, y
