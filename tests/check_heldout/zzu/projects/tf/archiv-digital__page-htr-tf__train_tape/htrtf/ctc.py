import tensorflow as tf


def ctc_loss(labels, logits):
    label_len = tf.reduce_sum(tf.cast(labels > 0, tf.int32), axis=1)
    logit_len = tf.fill([tf.shape(logits)[0]], tf.shape(logits)[1])
    loss = tf.nn.ctc_loss(labels, logits, label_len, logit_len, logits_time_major=False, blank_index=0)
    return tf.reduce_mean(loss)


def char_errors(labels, logits):
    """Sum of edit distances and of reference lengths for a batch (greedy decoding)."""
    logit_len = tf.fill([tf.shape(logits)[0]], tf.shape(logits)[1])
    decoded, _ = tf.nn.ctc_greedy_decoder(tf.transpose(logits, [1, 0, 2]), logit_len, blank_index=0)
    hyp = tf.cast(decoded[0], tf.int32)
    ref = tf.sparse.from_dense(labels)
    dist = tf.edit_distance(hyp, ref, normalize=False)
    return tf.reduce_sum(dist), tf.cast(tf.reduce_sum(tf.cast(labels > 0, tf.int32)), tf.float32)
