from tensorflow import keras
from tensorflow.keras import layers


def _block(x, filters):
    for _ in range(2):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
    return x


def build_unet(num_classes, bands=4, widths=(32, 64, 128, 256), tile=256):
    inp = keras.Input((tile, tile, bands))
    x, skips = inp, []
    for w in widths[:-1]:
        x = _block(x, w)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    x = _block(x, widths[-1])
    for w in reversed(widths[:-1]):
        x = layers.Conv2DTranspose(w, 2, strides=2, padding="same")(x)
        x = _block(layers.Concatenate()([x, skips.pop()]), w)
    return keras.Model(inp, layers.Conv2D(num_classes, 1)(x), name="unet")
