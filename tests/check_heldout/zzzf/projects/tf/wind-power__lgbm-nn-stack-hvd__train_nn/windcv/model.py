import tensorflow as tf


def make_regressor(n_features, hidden=(256, 128, 64), dropout=0.1):
    inputs = tf.keras.Input((n_features,))
    x = tf.keras.layers.Normalization(axis=-1, name="norm")(inputs)
    for h in hidden:
        x = tf.keras.layers.Dense(h, activation="gelu")(x)
        x = tf.keras.layers.Dropout(dropout)(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(1)(x))
