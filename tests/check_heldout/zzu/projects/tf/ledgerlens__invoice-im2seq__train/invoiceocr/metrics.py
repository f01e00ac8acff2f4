import tensorflow as tf


def masked_xent(targets, logits, smoothing=0.0):
    mask = tf.cast(targets != 0, tf.float32)
    onehot = tf.one_hot(targets, tf.shape(logits)[-1])
    if smoothing:
        onehot = onehot * (1.0 - smoothing) + smoothing / tf.cast(tf.shape(logits)[-1], tf.float32)
    xent = tf.nn.softmax_cross_entropy_with_logits(onehot, logits)
    return tf.reduce_sum(xent * mask) / tf.maximum(tf.reduce_sum(mask), 1.0)


def token_counts(targets, logits):
    """[correct tokens, tokens, exactly-matched sequences, sequences]."""
    mask = targets != 0
    hit = tf.equal(tf.argmax(logits, -1, output_type=tf.int32), targets)
    seq_ok = tf.reduce_all(hit | ~mask, axis=1)
    return tf.stack([tf.reduce_sum(tf.cast(hit & mask, tf.float32)), tf.reduce_sum(tf.cast(mask, tf.float32)),
                     tf.reduce_sum(tf.cast(seq_ok, tf.float32)), tf.cast(tf.size(seq_ok), tf.float32)])
