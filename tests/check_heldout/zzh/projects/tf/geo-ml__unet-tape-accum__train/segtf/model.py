import keras
from keras import layers


def conv_block(x, filters):
    x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
    return layers.Conv2D(filters, 3, padding="same", activation="relu")(x)


def small_unet(tile, channels, classes, base=16):
    inp = keras.Input((tile, tile, channels))
    c1 = conv_block(inp, base)
    c2 = conv_block(layers.MaxPool2D()(c1), base * 2)
    c3 = conv_block(layers.MaxPool2D()(c2), base * 4)
    u2 = conv_block(layers.Concatenate()([layers.UpSampling2D()(c3), c2]), base * 2)
    u1 = conv_block(layers.Concatenate()([layers.UpSampling2D()(u2), c1]), base)
    return keras.Model(inp, layers.Conv2D(classes, 1)(u1), name="small_unet")
