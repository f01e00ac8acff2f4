import tensorflow as tf


def build_lstm(window, n_features, horizon, units=64):
    inp = tf.keras.Input((window, n_features))
    x = tf.keras.layers.LSTM(units, return_sequences=True)(inp)
    x = tf.keras.layers.LSTM(units)(x)
    x = tf.keras.layers.Dense(units, activation="relu")(x)
    return tf.keras.Model(inp, tf.keras.layers.Dense(horizon)(x), name="pv_lstm")
