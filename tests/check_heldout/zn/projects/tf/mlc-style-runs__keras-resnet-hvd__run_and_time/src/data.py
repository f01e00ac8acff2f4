import numpy as np
import tensorflow as tf

MEAN = np.array([125.3, 123.0, 113.9], dtype=np.float32)
STD = np.array([63.0, 62.1, 66.7], dtype=np.float32)


def _augment(x, y):
    x = tf.image.resize_with_crop_or_pad(x, 36, 36)
    x = tf.image.random_crop(x, (32, 32, 3))
    return tf.image.random_flip_left_right(x), y


def build_split(path, split, batch_size, rank, world):
    """Returns (dataset, number of examples in the whole split).

    Examples are dealt round-robin: worker r keeps elements r, r + world, r + 2*world, ...
    """
    with np.load(path) as f:
        x = ((f[f"x_{split}"].astype(np.float32) - MEAN) / STD)
        y = f[f"y_{split}"].astype(np.int64).reshape(-1)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).enumerate()
    ds = ds.filter(lambda i, xy: tf.equal(i % world, rank)).map(lambda i, xy: xy)
    if split == "train":
        ds = ds.cache().shuffle(50_000 // world).repeat().map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
        ds = ds.batch(batch_size, drop_remainder=True)
    else:
        ds = ds.batch(batch_size).cache()
    return ds.prefetch(tf.data.AUTOTUNE), len(x)
