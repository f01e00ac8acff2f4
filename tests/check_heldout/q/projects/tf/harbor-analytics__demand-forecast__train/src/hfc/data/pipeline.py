import numpy as np
import tensorflow as tf


def make_windows(path, lookback, horizon, val_fraction):
    series = np.load(path)["series"].astype("float32")          # (n_series, T)
    series = (series - series.mean(1, keepdims=True)) / (series.std(1, keepdims=True) + 1e-6)
    split = int(series.shape[1] * (1 - val_fraction))

    def windows(block):
        xs, ys = [], []
        for t in range(lookback, block.shape[1] - horizon + 1):
            xs.append(block[:, t - lookback:t])
            ys.append(block[:, t:t + horizon])
        return np.concatenate(xs)[..., None], np.concatenate(ys)

    return windows(series[:, :split]), windows(series[:, split - lookback:])


def to_dataset(arrays, batch_size, num_shards, shard_index, training, seed=0):
    """Per-worker pipeline: a disjoint shard, whole batches only, endless when training."""
    ds = tf.data.Dataset.from_tensor_slices(arrays).shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(8192, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=True)
    if not training:
        ds = ds.repeat()
    return ds.prefetch(tf.data.AUTOTUNE)
