import keras
from keras import layers

from . import settings


def conv_autoencoder(filters=(16, 32, 64)):
    inp = keras.Input((settings.WINDOW, 1))
    x = inp
    for f in filters:
        x = layers.Conv1D(f, 9, padding="same", activation="relu")(x)
        x = layers.MaxPooling1D(2)(x)
    for f in reversed(filters):
        x = layers.UpSampling1D(2)(x)
        x = layers.Conv1D(f, 9, padding="same", activation="relu")(x)
    out = layers.Conv1D(1, 9, padding="same")(x)
    return keras.Model(inp, out)
