import tensorflow as tf


def build_mlp(n_in, n_out, hidden=(512, 512, 256), dropout=0.0):
    inputs = tf.keras.Input(shape=(n_in,))
    h = inputs
    for width in hidden:
        h = tf.keras.layers.Dense(width, activation="gelu")(h)
        h = tf.keras.layers.LayerNormalization()(h)
        if dropout:
            h = tf.keras.layers.Dropout(dropout)(h)
    outputs = tf.keras.layers.Dense(n_out)(h)
    return tf.keras.Model(inputs, outputs, name="column_emulator")
