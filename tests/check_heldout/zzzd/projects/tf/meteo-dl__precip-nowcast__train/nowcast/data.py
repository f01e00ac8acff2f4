import numpy as np
import tensorflow as tf


def radar_sequences(path=None, n=256, t_in=4, t_out=2, size=64, seed=0):
    """Sequences of radar reflectivity frames -> (past frames, future frames)."""
    if path:
        frames = np.load(path, mmap_mode="r")
        x, y = frames[:, :t_in], frames[:, t_in:t_in + t_out]
    else:
        rng = np.random.default_rng(seed)
        seq = rng.gamma(0.5, 1.0, (n, t_in + t_out, size, size)).astype(np.float32)
        x, y = seq[:, :t_in], seq[:, t_in:]
    return np.moveaxis(x, 1, -1), np.moveaxis(y, 1, -1)


def make_dataset(x, y, batch_size, rank, size, training=True):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    if training:
        ds = ds.shuffle(512, seed=rank)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
