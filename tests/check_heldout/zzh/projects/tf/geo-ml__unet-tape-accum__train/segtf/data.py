import numpy as np
import tensorflow as tf


def load_split(path, val_fraction=0.1):
    arr = np.load(path)
    x, y = arr["x"].astype("float32") / 255.0, arr["y"].astype("int32")
    n_val = max(1, int(len(x) * val_fraction))
    return (x[n_val:], y[n_val:]), (x[:n_val], y[:n_val])


def make_dataset(x, y, batch, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
