import keras
from keras import layers


def conv(x, f, s=1):
    x = layers.Conv2D(f, 3, strides=s, padding="same", use_bias=False)(x)
    return layers.ReLU()(layers.BatchNormalization()(x))


def text_block_net(size=640, width=32):
    """Tiny FPN that predicts a text-block probability map (DB-style, without the threshold branch)."""
    inp = keras.Input((size, size, 3))
    c1 = conv(conv(inp, width, 2), width)            # /2
    c2 = conv(conv(c1, 2 * width, 2), 2 * width)     # /4
    c3 = conv(conv(c2, 4 * width, 2), 4 * width)     # /8
    p3 = layers.Conv2D(2 * width, 1)(c3)
    p2 = layers.Add()([layers.UpSampling2D()(p3), layers.Conv2D(2 * width, 1)(c2)])
    p1 = layers.Add()([layers.UpSampling2D()(p2), layers.Conv2D(2 * width, 1)(c1)])
    out = layers.Conv2DTranspose(1, 4, strides=2, padding="same")(conv(p1, width))
    return keras.Model(inp, out, name="textblock_fpn")
