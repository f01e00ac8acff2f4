import glob
import os

import numpy as np
import tensorflow as tf


def load_episodes(root, synthetic=0):
    if synthetic:
        rng = np.random.default_rng(0)
        return [(rng.normal(size=(n, 32)).astype("float32"), rng.uniform(-1, 1, (n, 7)).astype("float32"))
                for n in rng.integers(30, 90, synthetic)]
    out = []
    for f in sorted(glob.glob(os.path.join(root, "*.npz"))):
        z = np.load(f)
        out.append((z["state"].astype("float32"), z["action"].astype("float32")))
    return out


def make_windows(episodes, window):
    xs, ys = [], []
    for s, a in episodes:
        for t in range(len(s) - window + 1):
            xs.append(s[t:t + window])
            ys.append(a[t + window - 1])
    return np.stack(xs), np.stack(ys)


def make_dataset(x, y, batch, rank, size, training=True, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    if training:
        ds = ds.shuffle(10_000, seed=seed + rank).repeat()
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
