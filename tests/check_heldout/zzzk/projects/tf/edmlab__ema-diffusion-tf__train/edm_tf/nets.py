import keras
from keras import layers, ops


def build_denoiser(res, ch):
    x = keras.Input((res, res, 3))
    c_noise = keras.Input(())
    e = layers.Dense(ch, activation="silu")(c_noise[:, None])
    h = layers.Conv2D(ch, 3, padding="same")(x)
    h = layers.Activation("silu")(h + e[:, None, None, :])
    h = layers.Conv2D(ch, 3, padding="same", activation="silu")(h)
    h = layers.Conv2D(ch, 3, padding="same", activation="silu")(h) + h
    out = layers.Conv2D(3, 3, padding="same")(h)
    return keras.Model([x, c_noise], out)
