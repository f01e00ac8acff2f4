import keras
from keras import layers


def build_fcn(bands, width=32):
    inp = keras.Input((None, None, bands))
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(inp)
    skip = layers.Conv2D(width, 3, padding="same", activation="relu")(x)
    x = layers.MaxPooling2D()(skip)
    x = layers.Conv2D(2 * width, 3, padding="same", activation="relu")(x)
    x = layers.UpSampling2D()(x)
    x = layers.Concatenate()([x, skip])
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(x)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="cloud_fcn")
