import keras
from keras import layers


def _block(x, f):
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def unet(size=256, base=16, depth=4):
    inp = keras.Input((size, size, 3))
    skips, x = [], inp
    for d in range(depth):
        x = _block(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = _block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = _block(layers.Concatenate()([x, skips[d]]), base * 2 ** d)
    return keras.Model(inp, layers.Conv2D(1, 1, activation="sigmoid")(x), name="unet")


def dice_coef(y_true, y_pred, smooth=1.0):
    inter = keras.ops.sum(y_true * y_pred)
    return (2.0 * inter + smooth) / (keras.ops.sum(y_true) + keras.ops.sum(y_pred) + smooth)


def bce_dice(y_true, y_pred):
    return keras.losses.binary_crossentropy(y_true, y_pred) + 1.0 - dice_coef(y_true, y_pred)
