import numpy as np
import tensorflow as tf

from . import config


def load_scada(path=None, n=50_000, seed=3):
    if path:
        return np.load(path).astype("float32")
    rng = np.random.default_rng(seed)
    speed = np.abs(8 + np.cumsum(rng.normal(0, 0.2, n))) % 25
    direction = np.cumsum(rng.normal(0, 0.05, n))
    power = np.clip((speed / 12.0) ** 3, 0, 1) + rng.normal(0, 0.02, n)
    temp = 10 + 5 * np.sin(np.arange(n) * 2 * np.pi / 144)
    return np.stack([power, speed, np.sin(direction), np.cos(direction), temp], 1).astype("float32")


def normalise(arr, n_train):
    mean, std = arr[:n_train].mean(0), arr[:n_train].std(0) + 1e-6
    return (arr - mean) / std


def make_windows(arr, seq_len=config.SEQ_LEN, horizon=config.HORIZON, stride=3):
    starts = np.arange(0, len(arr) - seq_len - horizon, stride)
    x = np.stack([arr[s:s + seq_len] for s in starts])
    y = arr[starts + seq_len + horizon - 1, 0:1]
    return x, y


def make_dataset(x, y, batch_size, num_shards=1, index=0, training=True):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(len(x))
    ds = ds.shard(num_shards, index)
    if training:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
