import tensorflow as tf


def bce_dice(mask, logits):
    bce = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=mask, logits=logits))
    prob = tf.sigmoid(logits)
    inter = tf.reduce_sum(prob * mask)
    dice = 1.0 - (2.0 * inter + 1.0) / (tf.reduce_sum(prob) + tf.reduce_sum(mask) + 1.0)
    return bce + dice


def f1_counts(mask, logits):
    pred = tf.cast(logits > 0, tf.float32)
    tp = tf.reduce_sum(pred * mask)
    return tf.stack([tp, tf.reduce_sum(pred) - tp, tf.reduce_sum(mask) - tp])
