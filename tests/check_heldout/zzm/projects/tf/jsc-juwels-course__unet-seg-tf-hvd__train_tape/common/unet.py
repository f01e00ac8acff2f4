import keras
from keras import layers


def _conv2(x, f):
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def build_unet(input_shape=(128, 128, 1), base=16, depth=3):
    inp = keras.Input(input_shape)
    skips, x = [], inp
    for d in range(depth):
        x = _conv2(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = _conv2(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = _conv2(layers.Concatenate()([x, skips[d]]), base * 2 ** d)
    out = layers.Conv2D(1, 1)(x)
    return keras.Model(inp, out, name="unet")
