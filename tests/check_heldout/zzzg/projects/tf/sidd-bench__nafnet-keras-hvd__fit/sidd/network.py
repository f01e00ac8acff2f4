import keras
from keras import layers


class SimpleGate(layers.Layer):
    def call(self, x):
        a, b = keras.ops.split(x, 2, axis=-1)
        return a * b


def naf_block(x, c):
    y = layers.LayerNormalization()(x)
    y = layers.Conv2D(c * 2, 1)(y)
    y = layers.DepthwiseConv2D(3, padding="same")(y)
    y = SimpleGate()(y)
    y = layers.Conv2D(c, 1)(y)
    x = layers.Add()([x, y])
    z = layers.Conv2D(c * 2, 1)(layers.LayerNormalization()(x))
    return layers.Add()([x, layers.Conv2D(c, 1)(SimpleGate()(z))])


def nafnet(width=16, blocks=2):
    inp = keras.Input((None, None, 3))
    x = layers.Conv2D(width, 3, padding="same")(inp)
    for _ in range(blocks):
        x = naf_block(x, width)
    out = layers.Add()([inp, layers.Conv2D(3, 3, padding="same")(x)])
    return keras.Model(inp, out, name="nafnet")
