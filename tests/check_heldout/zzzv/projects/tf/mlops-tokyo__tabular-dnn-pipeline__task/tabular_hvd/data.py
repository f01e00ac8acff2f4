import numpy as np
import tensorflow as tf


def synthetic_table(hp, seed=0):
    r = np.random.RandomState(seed)
    num = r.randn(hp.n_rows, hp.n_num).astype("float32")
    cat = r.randint(0, hp.cat_card, size=(hp.n_rows, hp.n_cat)).astype("int32")
    logit = num[:, 0] - 0.5 * num[:, 1] + (cat[:, 0] % 3 == 0)
    y = (logit + r.randn(hp.n_rows) > 0).astype("float32")
    return {"num": num, "cat": cat}, y


def input_fn(hp, split, num_shards, index):
    feats, y = synthetic_table(hp, seed=0 if split == "train" else 1)
    ds = tf.data.Dataset.from_tensor_slices((feats, y))
    ds = ds.shard(num_shards, index)
    if split == "train":
        ds = ds.shuffle(10000).repeat()
    return ds.batch(hp.batch_size).prefetch(tf.data.AUTOTUNE)
