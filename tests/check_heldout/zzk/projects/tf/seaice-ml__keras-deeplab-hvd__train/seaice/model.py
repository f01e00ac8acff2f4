import keras
from keras import layers


def conv_bn(x, filters, kernel=3, rate=1, strides=1):
    x = layers.Conv2D(filters, kernel, strides=strides, padding="same", dilation_rate=rate, use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def aspp(x, filters=64):
    branches = [conv_bn(x, filters, 1)] + [conv_bn(x, filters, 3, rate=r) for r in (2, 4, 6)]
    return conv_bn(layers.Concatenate()(branches), filters, 1)


def deeplab_lite(tile, in_channels, num_classes):
    inp = keras.Input((tile, tile, in_channels))
    low = conv_bn(conv_bn(inp, 32, strides=2), 32)
    x = conv_bn(conv_bn(low, 64, strides=2), 64)
    x = conv_bn(x, 128, strides=2)
    x = aspp(x)
    x = layers.UpSampling2D(4, interpolation="bilinear")(x)
    x = layers.Concatenate()([x, conv_bn(low, 24, 1)])
    x = conv_bn(x, 64)
    x = layers.UpSampling2D(2, interpolation="bilinear")(x)
    return keras.Model(inp, layers.Conv2D(num_classes, 1)(x), name="deeplab_lite")
