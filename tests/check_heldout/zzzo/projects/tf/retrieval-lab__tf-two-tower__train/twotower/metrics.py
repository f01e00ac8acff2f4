import tensorflow as tf


def in_batch_softmax_loss(u, v, temperature):
    logits = tf.matmul(u, v, transpose_b=True) / temperature
    labels = tf.range(tf.shape(u)[0])
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))


def in_batch_recall(u, v, k=10):
    """fraction of rows whose own item is in the top-k of the batch"""
    scores = tf.matmul(u, v, transpose_b=True)
    own = tf.linalg.diag_part(scores)[:, None]
    rank = tf.reduce_sum(tf.cast(scores > own, tf.int32), axis=1)
    return tf.reduce_mean(tf.cast(rank < k, tf.float32))
