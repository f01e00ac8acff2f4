import keras
from keras import layers


def encoder(size, width=32):
    inp = keras.Input((size, size, 3))
    x = inp
    for m in (1, 2, 4, 8):
        x = layers.Conv2D(width * m, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(width * m, 3, strides=2, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    return keras.Model(inp, layers.GlobalAveragePooling2D()(x), name="encoder")


def projector(in_dim, dim=128):
    return keras.Sequential([keras.Input((in_dim,)), layers.Dense(in_dim, activation="relu"), layers.Dense(dim)],
                            name="projector")


def linear_head(in_dim, num_classes):
    return keras.Sequential([keras.Input((in_dim,)), layers.Dense(num_classes)], name="linear_head")
