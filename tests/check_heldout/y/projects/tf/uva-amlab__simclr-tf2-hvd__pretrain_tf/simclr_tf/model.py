import keras
from keras import layers


def build_encoder(input_shape, width=64):
    inp = keras.Input(input_shape)
    x = inp
    for mult in (1, 2, 4, 8):
        x = layers.Conv2D(width * mult, 3, strides=2, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, x, name="encoder")


def build_simclr(input_shape, proj_dim=128):
    encoder = build_encoder(input_shape)
    inp = keras.Input(input_shape)
    h = encoder(inp)
    z = layers.Dense(512, activation="relu")(h)
    z = layers.Dense(proj_dim)(z)
    return keras.Model(inp, z, name="simclr")
