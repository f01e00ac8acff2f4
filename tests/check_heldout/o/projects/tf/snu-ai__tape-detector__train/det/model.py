import keras
from keras import layers


def conv_bn(x, f, s=1):
    x = layers.Conv2D(f, 3, s, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def centernet_tiny(num_classes=20, width=32, input_size=256):
    """Stride-4 CenterNet head on a small conv backbone: heatmap (C), size (2), offset (2)."""
    inp = keras.Input((input_size, input_size, 3))
    x = conv_bn(inp, width, 2)
    x = conv_bn(x, width * 2, 2)
    c4 = conv_bn(x, width * 2)
    x = conv_bn(c4, width * 4, 2)
    x = conv_bn(x, width * 4)
    x = conv_bn(x, width * 8, 2)
    x = layers.UpSampling2D(4, interpolation="bilinear")(x)
    x = layers.Concatenate()([x, c4])
    x = conv_bn(x, width * 2)
    heat = layers.Conv2D(num_classes, 1, activation="sigmoid", name="heat",
                         bias_initializer=keras.initializers.Constant(-2.19))(x)
    wh = layers.Conv2D(2, 1, name="wh")(x)
    off = layers.Conv2D(2, 1, name="offset")(x)
    return keras.Model(inp, [heat, wh, off], name="centernet_tiny")
