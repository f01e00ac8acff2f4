import tensorflow as tf


def build_keras_model(hp):
    inp = tf.keras.Input(shape=(hp.num_features,), name="features")
    x = tf.keras.layers.BatchNormalization()(inp)
    for units in hp.hidden_units:
        x = tf.keras.layers.Dense(units, activation="relu")(x)
    out = tf.keras.layers.Dense(1)(x)
    return tf.keras.Model(inp, out)
