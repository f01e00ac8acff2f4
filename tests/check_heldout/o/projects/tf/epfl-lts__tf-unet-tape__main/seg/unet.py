import keras
from keras import layers


def _double_conv(x, f, drop=0.0):
    for _ in range(2):
        x = layers.Conv2D(f, 3, padding="same", use_bias=False, kernel_initializer="he_normal")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
    return layers.SpatialDropout2D(drop)(x) if drop else x


def unet(in_ch=1, n_classes=1, base=16, depth=4):
    inp = keras.Input((None, None, in_ch))
    skips, x = [], inp
    for d in range(depth):
        x = _double_conv(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    x = _double_conv(x, base * 2 ** depth, drop=0.2)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = _double_conv(x, base * 2 ** d)
    out = layers.Conv2D(n_classes, 1)(x)
    return keras.Model(inp, out, name="unet")
