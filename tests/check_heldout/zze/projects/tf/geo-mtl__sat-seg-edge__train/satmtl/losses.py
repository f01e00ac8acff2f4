import tensorflow as tf


def mask_loss(labels, logits):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


def edge_loss(labels, logits, pos_weight=5.0):
    return tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                   pos_weight=pos_weight))


def dice_loss(labels, logits, eps=1.0):
    prob = tf.nn.softmax(logits)[..., 1]
    y = tf.cast(labels, tf.float32)
    inter = tf.reduce_sum(prob * y)
    return 1.0 - (2.0 * inter + eps) / (tf.reduce_sum(prob) + tf.reduce_sum(y) + eps)
