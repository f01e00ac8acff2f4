"""Sliding windows over several sensor networks, mixed with fixed sampling weights."""
import numpy as np
import tensorflow as tf


def windows(series, history, horizons):
    """series [T, S] -> inputs [N, history, S], targets {h: [N, S]} for each horizon h (in steps)."""
    hmax = max(horizons)
    n = len(series) - history - hmax + 1
    idx = np.arange(history)[None, :] + np.arange(n)[:, None]
    x = series[idx]
    y = {f"h{h}": series[np.arange(n) + history + h - 1] for h in horizons}
    return x.astype("float32"), {k: v.astype("float32") for k, v in y.items()}


def source_dataset(path, history, horizons):
    series = np.load(path)
    mu, sd = series.mean(0), series.std(0) + 1e-6
    x, y = windows((series - mu) / sd, history, horizons)
    return tf.data.Dataset.from_tensor_slices((x, y)), len(x)


def mixed_train_dataset(paths, weights, history, horizons, batch_size, seed=0):
    parts, total = [], 0
    for p in paths:
        ds, n = source_dataset(p, history, horizons)
        parts.append(ds.shuffle(min(n, 20000), seed=seed).repeat())
        total += n
    mixed = tf.data.Dataset.sample_from_datasets(parts, weights=weights, seed=seed)
    steps = total // batch_size
    return mixed.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), steps


def eval_dataset(path, history, horizons, batch_size):
    ds, _ = source_dataset(path, history, horizons)
    return ds.batch(batch_size)
