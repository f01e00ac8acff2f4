import json

import numpy as np
import tensorflow as tf


def shard_paths(manifest, split):
    with open(manifest) as f:
        return json.load(f)[split]


def windows_from_shards(paths, window):
    chunks = []
    for p in paths:
        series = np.load(p).astype("float32")
        n = len(series) // window
        chunks.append(series[: n * window].reshape(n, window, series.shape[-1]))
    data = np.concatenate(chunks)
    mean, std = data.mean(axis=(0, 1)), data.std(axis=(0, 1)) + 1e-6
    return (data - mean) / std


def make_pipeline(paths, cfg, training):
    windows = windows_from_shards(paths, cfg["io"]["window"])
    ds = tf.data.Dataset.from_tensor_slices(windows)
    if training:
        ds = ds.shuffle(len(windows), reshuffle_each_iteration=True)
    ds = ds.batch(cfg["io"]["batch"], drop_remainder=training).prefetch(tf.data.AUTOTUNE)
    return ds, len(windows)
