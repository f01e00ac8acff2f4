import keras
from keras import layers


def conv_autoencoder(window, channels, hidden, latent):
    inp = keras.Input((window, channels))
    x = layers.Conv1D(hidden, 5, strides=2, padding="same", activation="relu")(inp)
    x = layers.Conv1D(latent, 5, strides=2, padding="same", activation="relu")(x)
    x = layers.Conv1DTranspose(hidden, 5, strides=2, padding="same", activation="relu")(x)
    x = layers.Conv1DTranspose(channels, 5, strides=2, padding="same")(x)
    return keras.Model(inp, x, name="conv_ae")
