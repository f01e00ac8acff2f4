import glob
import os

import numpy as np
import tensorflow as tf


def _load_case(path):
    arr = np.load(path.decode() if isinstance(path, bytes) else path)
    img = arr["image"].astype("float32")
    img = (img - img.mean()) / (img.std() + 1e-6)
    return img[..., None], arr["label"].astype("int32")[..., None]


def _read(path):
    img, lab = tf.numpy_function(_load_case, [path], [tf.float32, tf.int32])
    img.set_shape([None, None, None, 1])
    lab.set_shape([None, None, None, 1])
    return img, lab


def patch_dataset(data_dir, split, batch, num_shards, shard_index, training):
    files = sorted(glob.glob(os.path.join(data_dir, split, "*.npz")))
    ds = tf.data.Dataset.from_tensor_slices(files).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(len(files)).repeat()
    ds = ds.map(_read, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch, drop_remainder=training).prefetch(2), len(files)
