import glob
import os

import numpy as np
import tensorflow as tf

WINDOW = 3000  # 30 s at 100 Hz


def _gaussian_targets(length, p_idx, s_idx, sigma=20):
    t = np.arange(length)
    p = np.exp(-((t - p_idx) ** 2) / (2 * sigma ** 2))
    s = np.exp(-((t - s_idx) ** 2) / (2 * sigma ** 2))
    noise = np.clip(1.0 - p - s, 0.0, 1.0)
    return np.stack([p, s, noise], axis=-1).astype(np.float32)


def _load(path):
    z = np.load(path.decode() if isinstance(path, bytes) else path)
    wave = z["data"][:WINDOW].astype(np.float32)
    wave = (wave - wave.mean(0)) / (wave.std(0) + 1e-8)
    return wave, _gaussian_targets(WINDOW, int(z["p_idx"]), int(z["s_idx"]))


def build_dataset(directory, batch_size, num_shards, shard_index, training):
    files = sorted(glob.glob(os.path.join(directory, "*.npz")))
    ds = tf.data.Dataset.from_tensor_slices(files).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(len(files) // num_shards + 1, reshuffle_each_iteration=True)
    ds = ds.map(lambda f: tf.numpy_function(_load, [f], (tf.float32, tf.float32)),
                num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(lambda w, y: (tf.ensure_shape(w, (WINDOW, 3)), tf.ensure_shape(y, (WINDOW, 3))))
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def count_batches(directory, batch_size, num_shards):
    n = len(glob.glob(os.path.join(directory, "*.npz")))
    return n // num_shards // batch_size
