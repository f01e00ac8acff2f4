import numpy as np
import tensorflow as tf


def load_fashion(data_dir=None):
    (x, y), (xv, yv) = tf.keras.datasets.fashion_mnist.load_data()
    x = (x[..., None] / 255.0).astype("float32")
    xv = (xv[..., None] / 255.0).astype("float32")
    return (x, y.astype("int64")), (xv, yv.astype("int64"))


def make_train_ds(x, y, batch_size, seed=0):
    steps = len(x) // batch_size
    ds = (tf.data.Dataset.from_tensor_slices((x, y))
          .shuffle(len(x), seed=seed, reshuffle_each_iteration=True)
          .batch(batch_size, drop_remainder=True)
          .repeat()
          .prefetch(tf.data.AUTOTUNE))
    return ds, steps


def make_eval_ds(x, y, batch_size):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size).cache()
