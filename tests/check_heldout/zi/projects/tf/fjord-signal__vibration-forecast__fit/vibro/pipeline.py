import numpy as np
import tensorflow as tf


def load_signal(path):
    sig = np.load(path).astype(np.float32)          # (samples, 3) tri-axial accelerometer
    return (sig - sig.mean(0)) / (sig.std(0) + 1e-6)


def window_starts(n, s):
    return np.arange(0, n - s.window - s.horizon + 1, s.stride)


def make_ds(signal, starts, s, rank=0, size=1, train=True):
    sig = tf.constant(signal)

    def cut(i):
        return sig[i:i + s.window], sig[i + s.window:i + s.window + s.horizon]

    ds = tf.data.Dataset.from_tensor_slices(starts)
    if train:
        ds = ds.shard(size, rank).shuffle(len(starts)).repeat()
    return ds.map(cut, num_parallel_calls=tf.data.AUTOTUNE).batch(s.batch_size).prefetch(tf.data.AUTOTUNE)
