import numpy as np
import tensorflow as tf


def load_split(path):
    z = np.load(path)
    return z["tokens"].astype("int32"), z["tags"].astype("int32")


def to_dataset(tokens, tags, batch_size, shuffle):
    ds = tf.data.Dataset.from_tensor_slices((tokens, tags))
    if shuffle:
        ds = ds.shuffle(len(tokens), reshuffle_each_iteration=True)
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
