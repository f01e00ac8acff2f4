import numpy as np
import tensorflow as tf

RAIN_THRESHOLD = np.log1p(1.0) / np.log1p(128.0)  # 1 mm/h in the normalised scale


def weighted_mae(y_true, y_pred):
    """Heavier weight on rainy pixels (balanced MAE)."""
    w = 1.0 + 4.0 * tf.cast(y_true > RAIN_THRESHOLD, tf.float32)
    return tf.reduce_mean(w * tf.abs(y_true - y_pred))


def contingency(y_true, y_pred):
    t = y_true > RAIN_THRESHOLD
    p = y_pred > RAIN_THRESHOLD
    hits = tf.reduce_sum(tf.cast(t & p, tf.float32))
    misses = tf.reduce_sum(tf.cast(t & ~p, tf.float32))
    false_alarms = tf.reduce_sum(tf.cast(~t & p, tf.float32))
    return tf.stack([hits, misses, false_alarms])
