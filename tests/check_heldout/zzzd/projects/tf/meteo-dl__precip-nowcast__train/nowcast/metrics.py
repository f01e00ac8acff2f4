import tensorflow as tf


def csi(pred, target, threshold=1.0):
    """Critical success index at a rain-rate threshold (mm/h)."""
    p, t = pred >= threshold, target >= threshold
    hits = tf.reduce_sum(tf.cast(p & t, tf.float32))
    misses = tf.reduce_sum(tf.cast(~p & t, tf.float32))
    false_alarms = tf.reduce_sum(tf.cast(p & ~t, tf.float32))
    return hits / tf.maximum(hits + misses + false_alarms, 1.0)
