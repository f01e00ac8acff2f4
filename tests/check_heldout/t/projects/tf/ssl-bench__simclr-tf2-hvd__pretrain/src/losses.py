import tensorflow as tf


def nt_xent(z1, z2, temperature=0.5):
    """SimCLR loss with the 2B-2 in-batch negatives of this worker."""
    z1 = tf.math.l2_normalize(tf.cast(z1, tf.float32), axis=1)
    z2 = tf.math.l2_normalize(tf.cast(z2, tf.float32), axis=1)
    z = tf.concat([z1, z2], 0)
    n = tf.shape(z1)[0]
    sim = tf.matmul(z, z, transpose_b=True) / temperature
    sim = sim - tf.eye(2 * n) * 1e9
    targets = tf.concat([tf.range(n, 2 * n), tf.range(0, n)], 0)
    return tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(targets, sim, from_logits=True))
