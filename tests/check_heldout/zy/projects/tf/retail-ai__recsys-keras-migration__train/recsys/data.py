import numpy as np
import tensorflow as tf


def load_interactions(path):
    arr = np.load(path)
    return arr["user"].astype(np.int32), arr["item"].astype(np.int32), arr["label"].astype(np.float32)


def make_dataset(path, batch_size, num_shards, index, shuffle=True, seed=13):
    users, items, labels = load_interactions(path)
    ds = tf.data.Dataset.from_tensor_slices(({"user": users, "item": items}, labels))
    ds = ds.shard(num_shards, index)
    if shuffle:
        ds = ds.shuffle(200_000, seed=seed)
    n_local = len(labels) // num_shards  # same on every worker, so step counts match
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE), n_local
