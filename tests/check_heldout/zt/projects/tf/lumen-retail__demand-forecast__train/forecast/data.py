import numpy as np
import tensorflow as tf


def read_shard_list(path):
    with open(path) as f:
        return [l.strip() for l in f if l.strip()]


def load_split(paths, split):
    xs, ys = [], []
    for p in paths:
        if f"/{split}/" not in p:
            continue
        with np.load(p) as z:
            xs.append(z["x"])
            ys.append(z["y"])
    return np.concatenate(xs).astype("float32"), np.concatenate(ys).astype("float32")


def make_dataset(x, y, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(10_000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
