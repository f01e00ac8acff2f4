import tensorflow as tf


def nt_xent(z1, z2, temperature):
    z1 = tf.math.l2_normalize(z1, axis=1)
    z2 = tf.math.l2_normalize(z2, axis=1)
    n = tf.shape(z1)[0]
    z = tf.concat([z1, z2], axis=0)
    sim = tf.matmul(z, z, transpose_b=True) / temperature
    sim = sim - tf.eye(2 * n) * 1e9
    labels = tf.concat([tf.range(n, 2 * n), tf.range(0, n)], axis=0)
    loss = tf.keras.losses.sparse_categorical_crossentropy(labels, sim, from_logits=True)
    return tf.reduce_mean(loss)
