import numpy as np
import tensorflow as tf


def load_npz(path):
    blob = np.load(path)
    return blob["x"].astype("float32"), blob["y"].astype("int32")


def make_dataset(x, y, batch_size, num_shards, index, shuffle):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if shuffle:
        ds = ds.shuffle(len(x) // num_shards + 1).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
