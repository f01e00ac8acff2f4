import numpy as np
import tensorflow as tf


def load_features(path):
    z = np.load(path)
    out = {k: z[k] for k in ("x_train", "y_train", "x_val", "y_val")}
    for k in ("x_train", "x_val"):
        out[k] = out[k].astype(np.float32)[..., None]   # (n, frames, mels, 1)
    for k in ("y_train", "y_val"):
        out[k] = out[k].astype(np.int64)
    return out


def spec_augment(x, y, max_t=10, max_f=8):
    """time + frequency masking on a batch."""
    t = tf.shape(x)[1]
    f = tf.shape(x)[2]
    t0 = tf.random.uniform([], 0, t - max_t, dtype=tf.int32)
    f0 = tf.random.uniform([], 0, f - max_f, dtype=tf.int32)
    tmask = tf.logical_or(tf.range(t) < t0, tf.range(t) >= t0 + max_t)
    fmask = tf.logical_or(tf.range(f) < f0, tf.range(f) >= f0 + max_f)
    mask = tf.cast(tmask[:, None] & fmask[None, :], x.dtype)
    return x * mask[None, :, :, None], y
