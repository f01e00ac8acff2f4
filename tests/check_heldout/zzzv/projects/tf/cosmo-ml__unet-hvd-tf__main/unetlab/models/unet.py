import keras
from keras import layers


def _block(x, f):
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def build_unet(img, base=16, depth=3):
    inp = keras.Input((img, img, 1))
    skips, x = [], inp
    for d in range(depth):
        x = _block(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    x = _block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _block(x, base * 2 ** d)
    out = layers.Conv2D(1, 1)(x)
    return keras.Model(inp, out, name="unet")
