import keras
from keras import layers


def tiny_unet(tile, bands=4, n_classes=4):
    inp = keras.Input((tile, tile, bands))
    c1 = layers.Conv2D(16, 3, padding="same", activation="relu")(inp)
    p1 = layers.MaxPooling2D()(c1)
    c2 = layers.Conv2D(32, 3, padding="same", activation="relu")(p1)
    u1 = layers.UpSampling2D()(c2)
    m = layers.Concatenate()([u1, c1])
    c3 = layers.Conv2D(16, 3, padding="same", activation="relu")(m)
    out = layers.Conv2D(n_classes, 1)(c3)
    return keras.Model(inp, out)
