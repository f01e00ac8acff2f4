import keras
from keras import layers


def cord_unet(size=192, f=16):
    inp = keras.Input((size, size, 1))
    c1 = layers.Conv2D(f, 3, padding="same", activation="relu")(inp)
    c2 = layers.Conv2D(f * 2, 3, strides=2, padding="same", activation="relu")(c1)
    c3 = layers.Conv2D(f * 4, 3, strides=2, padding="same", activation="relu")(c2)
    u2 = layers.Concatenate()([layers.Conv2DTranspose(f * 2, 2, strides=2)(c3), c2])
    u2 = layers.Conv2D(f * 2, 3, padding="same", activation="relu")(u2)
    u1 = layers.Concatenate()([layers.Conv2DTranspose(f, 2, strides=2)(u2), c1])
    u1 = layers.Conv2D(f, 3, padding="same", activation="relu")(u1)
    return keras.Model(inp, layers.Conv2D(1, 1, activation="sigmoid")(u1), name="cord_unet")
