import tensorflow as tf


def _view(x, mask_rate=0.3, noise=0.1):
    keep = tf.cast(tf.random.uniform(tf.shape(x)) > mask_rate, x.dtype)
    return x * keep + noise * tf.random.normal(tf.shape(x))


def two_views(batch):
    return _view(batch), _view(batch)
