import keras
from keras import layers


def build_autoencoder(window, channels, latent=16):
    inp = keras.Input((window, channels))
    x = layers.Conv1D(32, 7, strides=2, padding="same", activation="relu")(inp)
    x = layers.Conv1D(16, 7, strides=2, padding="same", activation="relu")(x)
    z = layers.Conv1D(latent, 3, padding="same", name="latent")(x)
    x = layers.Conv1DTranspose(16, 7, strides=2, padding="same", activation="relu")(z)
    x = layers.Conv1DTranspose(32, 7, strides=2, padding="same", activation="relu")(x)
    out = layers.Conv1D(channels, 7, padding="same")(x)
    return keras.Model(inp, out, name="conv_ae")
