import tensorflow as tf

from .data import FEATURES, TARGETS


def mlp(width=256, depth=4):
    layers = [tf.keras.Input((FEATURES,))]
    for _ in range(depth):
        layers += [tf.keras.layers.Dense(width, activation="swish")]
    layers.append(tf.keras.layers.Dense(TARGETS))
    return tf.keras.Sequential(layers)
