import numpy as np
import tensorflow as tf


def make_dataset(path, batch_size, num_workers, worker, training):
    z = np.load(path)
    n = len(z["label"]) // (num_workers * batch_size) * (num_workers * batch_size)
    feats = {"user": z["user"][:n], "item": z["item"][:n], "history": z["history"][:n]}
    ds = tf.data.Dataset.from_tensor_slices((feats, z["label"][:n].astype("float32")))
    ds = ds.shard(num_workers, worker)
    if training:
        ds = ds.shuffle(100_000)
    steps = n // (num_workers * batch_size)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), steps
