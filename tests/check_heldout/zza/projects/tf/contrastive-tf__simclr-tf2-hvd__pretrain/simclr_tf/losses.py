import tensorflow as tf

LARGE_NUM = 1e9


def nt_xent(z1, z2, temperature=0.5):
    z1 = tf.math.l2_normalize(z1, axis=1)
    z2 = tf.math.l2_normalize(z2, axis=1)
    n = tf.shape(z1)[0]
    labels = tf.one_hot(tf.range(n), n * 2)
    masks = tf.one_hot(tf.range(n), n)
    logits_aa = tf.matmul(z1, z1, transpose_b=True) / temperature - masks * LARGE_NUM
    logits_bb = tf.matmul(z2, z2, transpose_b=True) / temperature - masks * LARGE_NUM
    logits_ab = tf.matmul(z1, z2, transpose_b=True) / temperature
    logits_ba = tf.matmul(z2, z1, transpose_b=True) / temperature
    loss_a = tf.nn.softmax_cross_entropy_with_logits(labels, tf.concat([logits_ab, logits_aa], 1))
    loss_b = tf.nn.softmax_cross_entropy_with_logits(labels, tf.concat([logits_ba, logits_bb], 1))
    return tf.reduce_mean(loss_a + loss_b)
