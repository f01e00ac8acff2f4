import tensorflow as tf


def build_net(input_shape, num_classes):
    return tf.keras.Sequential([
        tf.keras.layers.Input(input_shape),
        tf.keras.layers.Dense(512, activation="relu"),
        tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Dense(256, activation="relu"),
        tf.keras.layers.Dense(num_classes, activation="softmax"),
    ])
