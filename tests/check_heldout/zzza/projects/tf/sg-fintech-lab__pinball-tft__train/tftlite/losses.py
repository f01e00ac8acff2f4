import tensorflow as tf


def pinball(y_true, y_pred, quantiles):
    """y_true (B, H), y_pred (B, H, Q) -> per-sample loss (B,)."""
    q = tf.constant(quantiles, dtype=y_pred.dtype)[None, None, :]
    e = y_true[..., None] - y_pred
    return tf.reduce_mean(tf.maximum(q * e, (q - 1.0) * e), axis=[1, 2])
