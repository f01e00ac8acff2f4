import numpy as np
import tensorflow as tf


def load_split(path, split):
    with np.load(path) as f:
        return f[f"x_{split}"].astype("float32"), f[f"y_{split}"].astype("float32").reshape(-1, 1)


def make_dataset(x, y, batch_size, num_shards, index, training, seed=0):
    # equal shards: drop the tail so every worker has len(x) // num_shards examples
    per = len(x) // num_shards
    ds = tf.data.Dataset.from_tensor_slices((x, y)).take(per * num_shards).shard(num_shards, index)
    if training:
        ds = ds.cache().shuffle(10_000, seed=seed + index, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
