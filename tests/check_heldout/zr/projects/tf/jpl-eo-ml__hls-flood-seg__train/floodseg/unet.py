import keras
from keras import layers


def _down(x, f):
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return x, layers.MaxPooling2D()(x)


def _up(x, skip, f):
    x = layers.Conv2DTranspose(f, 2, strides=2)(x)
    x = layers.Concatenate()([x, skip])
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def unet(in_ch=6, base=16, depth=3):
    inp = keras.Input((None, None, in_ch))
    skips, x = [], inp
    for d in range(depth):
        s, x = _down(x, base * 2 ** d)
        skips.append(s)
    x = layers.Conv2D(base * 2 ** depth, 3, padding="same", activation="relu")(x)
    for d in reversed(range(depth)):
        x = _up(x, skips[d], base * 2 ** d)
    return keras.Model(inp, layers.Conv2D(1, 1)(x), name="flood_unet")
