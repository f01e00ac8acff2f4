import tensorflow as tf


def masked_bce_dice(y, logits, water_weight=2.0):
    """BCE weighted towards water pixels + soft Dice; pixels with y == -1 are ignored."""
    valid = tf.cast(y >= 0, tf.float32)
    yt = tf.cast(tf.maximum(y, 0), tf.float32)
    logits = tf.squeeze(logits, -1)
    w = valid * (1.0 + (water_weight - 1.0) * yt)
    bce = tf.nn.sigmoid_cross_entropy_with_logits(labels=yt, logits=logits)
    bce = tf.reduce_sum(w * bce) / tf.maximum(tf.reduce_sum(w), 1.0)
    p = tf.sigmoid(logits) * valid
    dice = 1.0 - (2.0 * tf.reduce_sum(p * yt) + 1.0) / (tf.reduce_sum(p) + tf.reduce_sum(yt * valid) + 1.0)
    return bce + dice
