import math

import tensorflow as tf


def crps_normal(y, mu, sigma):
    """Closed-form CRPS of N(mu, sigma^2) at the observation y (Gneiting et al. 2005), batch mean."""
    z = (y - mu) / sigma
    pdf = tf.exp(-0.5 * z ** 2) / math.sqrt(2.0 * math.pi)
    cdf = 0.5 * (1.0 + tf.math.erf(z / math.sqrt(2.0)))
    return tf.reduce_mean(sigma * (z * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / math.sqrt(math.pi)))
