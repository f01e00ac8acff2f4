import tensorflow as tf

_bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_logits, fake_logits, smooth=0.9):
    real = _bce(tf.ones_like(real_logits) * smooth, real_logits)
    fake = _bce(tf.zeros_like(fake_logits), fake_logits)
    return real + fake


def generator_loss(fake_logits):
    return _bce(tf.ones_like(fake_logits), fake_logits)
