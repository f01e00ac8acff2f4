import glob
import os

import numpy as np
import tensorflow as tf

MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def _load(path):
    arr = np.load(path.decode() if isinstance(path, bytes) else path)
    return ((arr["image"].astype(np.float32) / 255.0 - MEAN) / STD).astype(np.float32), \
        arr["mask"].astype(np.int32)


def tile_dataset(root, split, batch_size, num_shards, shard_index, training=True, tile=256):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    if training:  # equal number of tiles per worker, so every worker runs the same number of steps
        files = files[:len(files) // num_shards * num_shards]
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(len(files), reshuffle_each_iteration=True)

    def load(p):
        img, mask = tf.numpy_function(_load, [p], [tf.float32, tf.int32])
        img.set_shape([tile, tile, 3])
        mask.set_shape([tile, tile])
        return img, mask

    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: tf.cond(tf.random.uniform([]) < 0.5,
                                         lambda: (tf.image.flip_left_right(x), tf.reverse(y, [1])),
                                         lambda: (x, y)))
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
