import keras
from keras import layers, ops


def encoder(input_shape, dim):
    return keras.Sequential([
        keras.Input(input_shape),
        layers.Conv2D(64, 10, activation="relu"), layers.MaxPool2D(),
        layers.Conv2D(128, 4, activation="relu"), layers.GlobalMaxPool2D(),
        layers.Dense(dim),
    ], name="encoder")


def build_siamese(input_shape, dim):
    enc = encoder(input_shape, dim)
    a, b = keras.Input(input_shape, name="left"), keras.Input(input_shape, name="right")
    ea, eb = enc(a), enc(b)
    dist = layers.Lambda(lambda t: ops.sqrt(ops.maximum(ops.sum(ops.square(t[0] - t[1]), axis=1, keepdims=True),
                                                        1e-9)))([ea, eb])
    return keras.Model([a, b], dist, name="siamese")
