import tensorflow as tf


def make_mlp(n_features, hidden):
    return tf.keras.Sequential([
        tf.keras.Input((n_features,)),
        tf.keras.layers.Dense(hidden, activation="relu"),
        tf.keras.layers.Dense(hidden, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
