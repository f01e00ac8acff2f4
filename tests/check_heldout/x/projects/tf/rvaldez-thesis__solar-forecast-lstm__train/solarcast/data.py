import glob
import os

import numpy as np
import tensorflow as tf


def _windows(arr, window, horizon):
    """arr: (T, F), column 0 = PV power. Returns X (N, window, F), Y (N, horizon)."""
    idx = np.arange(len(arr) - window - horizon + 1)
    x = np.stack([arr[i:i + window] for i in idx])
    y = np.stack([arr[i + window:i + window + horizon, 0] for i in idx])
    return x.astype(np.float32), y.astype(np.float32)


def load_plants(data_dir, target, window=48, horizon=24, val_frac=0.2):
    xs, ys, xv, yv = [], [], [], []
    for path in sorted(glob.glob(os.path.join(data_dir, "plant_*.npy"))):
        if os.path.basename(path).startswith(target):
            continue
        x, y = _windows(np.load(path), window, horizon)
        cut = int(len(x) * (1 - val_frac))
        xs.append(x[:cut]); ys.append(y[:cut]); xv.append(x[cut:]); yv.append(y[cut:])
    tgt = _windows(np.load(os.path.join(data_dir, target + ".npy")), window, horizon)
    return (np.concatenate(xs), np.concatenate(ys)), (np.concatenate(xv), np.concatenate(yv)), tgt


def make_dataset(x, y, batch_size, rank, size, training, steps=None):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(len(x))
    ds = ds.shard(size, rank)
    if training:
        return ds.batch(batch_size, drop_remainder=True).take(steps).prefetch(2)
    return ds.batch(batch_size).prefetch(2)
