import keras
from keras import layers


def build(history, height, width, filters):
    inp = keras.Input((history, height, width, 1))
    x = layers.Conv3D(filters, (3, 3, 3), padding="same", activation="relu")(inp)
    x = layers.Conv3D(filters, (3, 3, 3), padding="same", activation="relu")(x)
    x = layers.Conv3D(filters, (history, 1, 1), padding="valid", activation="relu")(x)
    x = layers.Reshape((height, width, filters))(x)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="conv3d_nowcast")
