import numpy as np
import tensorflow as tf


def load_split(path):
    z = np.load(path)
    return (z["x_train"], z["y_train"]), (z["x_val"], z["y_val"])


def _augment(x, y):
    x = tf.image.random_flip_left_right(x)
    x = tf.image.random_flip_up_down(x)
    x = tf.image.rot90(x, k=tf.random.uniform([], 0, 4, dtype=tf.int32))
    return x, y


def make_dataset(x, y, batch, training, shard=None):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if shard is not None:
        ds = ds.shard(*shard)
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(8192).repeat().map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
