import tensorflow as tf

MAX_DEPTH = 10.0


def _grad(x):
    return x[:, 1:, :-1] - x[:, :-1, :-1], x[:, :-1, 1:] - x[:, :-1, :-1]


def depth_loss(y_true, y_pred, theta=0.1, lam=0.5):
    """DenseDepth loss (L1 + gradient + SSIM) plus a scale-invariant log term."""
    l_depth = tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)
    dy_t, dx_t = _grad(y_true)
    dy_p, dx_p = _grad(y_pred)
    l_edges = tf.reduce_mean(tf.abs(dy_p - dy_t) + tf.abs(dx_p - dx_t), axis=-1)
    l_ssim = tf.clip_by_value((1 - tf.image.ssim(y_true, y_pred, MAX_DEPTH)) * 0.5, 0, 1)
    d = tf.math.log(tf.maximum(y_pred, 1e-3)) - tf.math.log(tf.maximum(y_true, 1e-3))
    l_si = tf.reduce_mean(d ** 2, axis=[1, 2, 3]) - lam * tf.reduce_mean(d, axis=[1, 2, 3]) ** 2
    return (l_ssim + tf.reduce_mean(l_edges, axis=[1, 2]) + theta * tf.reduce_mean(l_depth, axis=[1, 2])
            + 0.1 * l_si)


def abs_rel(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - y_pred) / tf.maximum(y_true, 1e-3))


def rmse(y_true, y_pred):
    return tf.sqrt(tf.reduce_mean(tf.square(y_true - y_pred)))
