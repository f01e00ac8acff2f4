"""Pre-rendered CenterNet targets stored in TFRecord-free npz shards (one per 1k images)."""
import glob
import os

import numpy as np
import tensorflow as tf


def _load_shards(pattern):
    files = sorted(glob.glob(pattern))
    if not files:
        raise FileNotFoundError(pattern)
    parts = [np.load(f) for f in files]
    keys = ("image", "heat", "wh", "offset", "mask")
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def make_dataset(root, split, batch_size, num_shards=1, index=0, training=True):
    arrays = _load_shards(os.path.join(root, f"{split}-*.npz"))
    ds = tf.data.Dataset.from_tensor_slices(arrays)
    ds = ds.shard(num_shards, index)
    if training:
        ds = ds.shuffle(2048).repeat()

    def prep(ex):
        img = tf.cast(ex["image"], tf.float32) / 127.5 - 1.0
        return img, (ex["heat"], ex["wh"], ex["offset"], tf.cast(ex["mask"], tf.float32))

    ds = ds.map(prep, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), len(arrays["image"])
