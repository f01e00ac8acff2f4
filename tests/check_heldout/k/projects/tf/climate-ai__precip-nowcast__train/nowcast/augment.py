import tensorflow as tf


def random_dihedral(x, y):
    """Same random flip / 90-degree rotation for the input sequence [T, H, W, 1] and target [H, W, K]."""
    k = tf.random.uniform([], 0, 4, dtype=tf.int32)
    x = tf.image.rot90(x, k)
    y = tf.image.rot90(y, k)
    flip = tf.random.uniform([]) < 0.5
    x = tf.cond(flip, lambda: tf.image.flip_left_right(x), lambda: x)
    y = tf.cond(flip, lambda: tf.image.flip_left_right(y), lambda: y)
    return x, y


def drop_empty(x, y, min_rain_fraction=0.02):
    """Skip samples whose target is almost dry: they teach the model to predict nothing."""
    return tf.reduce_mean(tf.cast(y > 0.05, tf.float32)) >= min_rain_fraction
