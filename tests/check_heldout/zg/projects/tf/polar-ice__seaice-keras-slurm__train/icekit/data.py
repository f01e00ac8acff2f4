import numpy as np
import tensorflow as tf


def load(path):
    with np.load(path) as z:
        return (z["x_train"].astype("float32"), z["y_train"].astype("float32"),
                z["x_val"].astype("float32"), z["y_val"].astype("float32"))


def make_dataset(x, y, batch, shuffle=True):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shuffle:
        ds = ds.shuffle(len(x), reshuffle_each_iteration=True).repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
