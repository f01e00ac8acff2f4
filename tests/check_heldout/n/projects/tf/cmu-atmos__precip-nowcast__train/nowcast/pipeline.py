import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

T_IN, T_OUT = 6, 6


def _load_sequence(path):
    arr = np.load(path.decode() if isinstance(path, bytes) else path)["frames"].astype(np.float32)
    arr = (np.log1p(np.clip(arr, 0.0, 128.0)) / np.log1p(128.0)).astype(np.float32)
    return arr[:T_IN, ..., None], arr[T_IN:T_IN + T_OUT, ..., None]


def _tf_load(path):
    x, y = tf.numpy_function(_load_sequence, [path], [tf.float32, tf.float32])
    x.set_shape((T_IN, None, None, 1))
    y.set_shape((T_OUT, None, None, 1))
    return x, y


def _random_crop(x, y, size):
    both = tf.concat([x, y], 0)
    both = tf.image.random_crop(both, (T_IN + T_OUT, size, size, 1))
    return both[:T_IN], both[T_IN:]


def build_dataset(root, split, batch_size, crop=128, training=True, seed=0):
    """One shard of the sequences per GPU of the node; sequences are .npz files of 12 radar frames."""
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.local_size(), hvd.local_rank())
    if training:
        ds = ds.shuffle(len(files), seed=seed, reshuffle_each_iteration=True)
    ds = ds.map(_tf_load, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: _random_crop(x, y, crop), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
