import keras
from keras import layers


def conv(x, f, s=1, act=True):
    x = layers.Conv2D(f, 3, s, padding="same")(x)
    return layers.ReLU()(x) if act else x


def res(x, f):
    return layers.Add()([x, conv(conv(x, f), f, act=False)])


def small_unet(nf=16):
    inp = keras.Input((None, None, 3))
    e1 = res(conv(inp, nf), nf)
    e2 = res(conv(e1, nf * 2, 2), nf * 2)
    d2 = layers.Conv2DTranspose(nf, 4, 2, padding="same")(e2)
    d1 = res(conv(layers.Concatenate()([d2, e1]), nf), nf)
    out = layers.Add()([inp, conv(d1, 3, act=False)])
    return keras.Model(inp, out)
