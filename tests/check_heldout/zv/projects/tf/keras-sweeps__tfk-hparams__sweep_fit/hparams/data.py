import numpy as np
import tensorflow as tf


def load_npz(path):
    with np.load(path) as d:
        x_tr, y_tr, x_te, y_te = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
    prep = lambda x: (x[..., None] / 255.0).astype("float32")
    return (prep(x_tr), y_tr.astype("int64")), (prep(x_te), y_te.astype("int64"))


def make_dataset(x, y, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(10000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
