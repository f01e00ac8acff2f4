import numpy as np
import tensorflow as tf


def cl_from_cp(x_station):
    """Cl ~ closed contour integral of Cp dx (lower minus upper surface), trapezoidal weights."""
    x = np.asarray(x_station, dtype=np.float32)
    dx = np.gradient(x)
    w = tf.constant(-dx, dtype=tf.float32)

    def integrate(cp):
        return tf.reduce_sum(cp * w, axis=-1, keepdims=True)
    return integrate


def smoothness_penalty(cp):
    d2 = cp[:, 2:] - 2.0 * cp[:, 1:-1] + cp[:, :-2]
    return tf.reduce_mean(tf.square(d2))
