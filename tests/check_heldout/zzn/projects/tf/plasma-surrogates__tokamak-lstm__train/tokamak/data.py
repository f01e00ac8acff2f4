import h5py
import numpy as np
import tensorflow as tf


def shot_ids(path, split):
    with h5py.File(path, "r") as f:
        return sorted(f[split].keys())


def read_shots(path, split, ids, window, stride):
    xs, ys = [], []
    with h5py.File(path, "r") as f:
        for sid in ids:
            g = f[split][sid]
            act, tgt = g["actuators"][()], g["targets"][()]          # (T, A), (T, 4)
            for s in range(0, len(act) - window, stride):
                xs.append(act[s:s + window])
                ys.append(tgt[s + 1:s + window + 1])
    return np.asarray(xs, np.float32), np.asarray(ys, np.float32)


def shard_shots(ids, rank, size, seed=0):
    """Whole shots per worker (no leakage of one discharge across workers)."""
    ids = list(ids)
    np.random.RandomState(seed).shuffle(ids)
    return ids[rank::size]


def to_dataset(x, y, batch, shuffle, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shuffle:
        ds = ds.shuffle(len(x), seed=seed)
    return ds.batch(batch, drop_remainder=shuffle).prefetch(tf.data.AUTOTUNE)
