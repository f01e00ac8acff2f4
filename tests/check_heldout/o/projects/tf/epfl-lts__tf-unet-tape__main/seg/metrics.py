import tensorflow as tf


def soft_dice_loss(y_true, logits, eps=1.0):
    p = tf.sigmoid(logits)
    inter = tf.reduce_sum(p * y_true, axis=[1, 2, 3])
    denom = tf.reduce_sum(p + y_true, axis=[1, 2, 3])
    return 1.0 - tf.reduce_mean((2.0 * inter + eps) / (denom + eps))


def bce_dice(y_true, logits, w_dice=0.5):
    bce = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits))
    return bce + w_dice * soft_dice_loss(y_true, logits)


def per_image_dice(y_true, logits, thr=0.5, eps=1e-6):
    """Hard dice of every image of the batch, shape (B,)."""
    pred = tf.cast(tf.sigmoid(logits) > thr, tf.float32)
    inter = tf.reduce_sum(pred * y_true, axis=[1, 2, 3])
    return (2.0 * inter + eps) / (tf.reduce_sum(pred + y_true, axis=[1, 2, 3]) + eps)
