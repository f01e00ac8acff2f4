import keras
from keras import layers


def conv_bn(x, filters):
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def segnet_lite(num_classes=2, tile=256, width=32):
    inp = keras.Input((tile, tile, 3))
    x, skips = inp, []
    for i in range(3):
        x = conv_bn(conv_bn(x, width * 2 ** i), width * 2 ** i)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_bn(x, width * 8)
    for i in reversed(range(3)):
        x = layers.UpSampling2D()(x)
        x = layers.Concatenate()([x, skips[i]])
        x = conv_bn(conv_bn(x, width * 2 ** i), width * 2 ** i)
    out = layers.Conv2D(num_classes, 1)(x)
    return keras.Model(inp, out, name="segnet_lite")
