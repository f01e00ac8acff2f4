import keras
from keras import layers


def _double_conv(x, f):
    for _ in range(2):
        x = layers.Conv2D(f, 3, padding="same", kernel_initializer="he_normal")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    return x


def build_unet(tile=128, channels=4, n_classes=7, base=16, depth=3):
    inp = keras.Input((tile, tile, channels))
    skips, x = [], inp
    for d in range(depth):
        x = _double_conv(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    x = _double_conv(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _double_conv(x, base * 2 ** d)
    out = layers.Conv2D(n_classes, 1, activation="softmax")(x)
    return keras.Model(inp, out, name=f"unet_d{depth}")
