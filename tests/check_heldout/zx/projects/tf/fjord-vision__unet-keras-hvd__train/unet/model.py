import keras
from keras import layers, ops


def _double_conv(x, filters):
    for _ in range(2):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    return x


def build_unet(size, base=32, depth=4):
    inp = keras.Input((size, size, 3))
    skips, x = [], inp
    for d in range(depth):
        x = _double_conv(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    x = _double_conv(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2)(x)
        x = _double_conv(layers.Concatenate()([x, skips[d]]), base * 2 ** d)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="unet")


def dice_coef(y_true, y_pred, smooth=1.0):
    inter = ops.sum(y_true * y_pred, axis=(1, 2, 3))
    union = ops.sum(y_true, axis=(1, 2, 3)) + ops.sum(y_pred, axis=(1, 2, 3))
    return ops.mean((2.0 * inter + smooth) / (union + smooth))
