from keras import layers

OP_NAMES = ["skip", "avg_pool", "max_pool", "sep_conv_3x3", "dil_conv_3x3"]


class SepBlock(layers.Layer):
    def __init__(self, c, rate, **kw):
        super().__init__(**kw)
        self.relu = layers.ReLU()
        self.conv = layers.SeparableConv2D(c, 3, padding="same", dilation_rate=rate, use_bias=False)
        self.bn = layers.BatchNormalization()

    def call(self, x, training=False):
        return self.bn(self.conv(self.relu(x)), training=training)


def make_op(name, c):
    if name == "skip":
        return layers.Identity()
    if name == "avg_pool":
        return layers.AveragePooling2D(3, 1, padding="same")
    if name == "max_pool":
        return layers.MaxPooling2D(3, 1, padding="same")
    return SepBlock(c, 2 if name.startswith("dil") else 1)
