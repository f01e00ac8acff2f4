import glob
import os

import numpy as np
import tensorflow as tf


def _load(path):
    blob = np.load(path.decode())
    return blob["image"].astype("float32") / 255.0, blob["mask"].astype("int32")


def tile_dataset(root, split, batch_size, num_shards, index):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    ds = tf.data.Dataset.from_tensor_slices(files).shard(num_shards, index)
    ds = ds.map(lambda p: tf.numpy_function(_load, [p], (tf.float32, tf.int32)),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, [None, None, 3]), tf.ensure_shape(y, [None, None])))
    if split == "train":
        ds = ds.shuffle(512).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), len(files)
