import tensorflow as tf
from tensorflow import keras


def build(n_in, hidden, dropout):
    inp = keras.Input((n_in,))
    h = inp
    for width in hidden:
        h = keras.layers.Dense(width, activation="gelu")(h)
        h = keras.layers.Dropout(dropout)(h)
    out = keras.layers.Dense(1, activation="softplus")(h)
    return keras.Model(inp, out)


def outlier_robust_loss(z_true, z_pred):
    """Normalised photo-z residual dz/(1+z) through a Lorentzian, as in the DC1 photo-z paper."""
    z_true = tf.reshape(z_true, (-1, 1))
    dz = (z_pred - z_true) / (1.0 + z_true)
    return tf.reduce_mean(1.0 - 1.0 / (1.0 + (dz / 0.15) ** 2))
