import keras
from keras import layers


def down(f, bn=True):
    m = keras.Sequential([layers.Conv2D(f, 4, 2, "same", use_bias=False)])
    if bn:
        m.add(layers.BatchNormalization())
    m.add(layers.LeakyReLU(0.2))
    return m


def up(f, drop=False):
    m = keras.Sequential([layers.Conv2DTranspose(f, 4, 2, "same", use_bias=False), layers.BatchNormalization()])
    if drop:
        m.add(layers.Dropout(0.5))
    m.add(layers.ReLU())
    return m


def unet_generator(size, depth=4):
    inp = layers.Input((size, size, 3))
    x, skips = inp, []
    for i in range(depth):
        x = down(min(64 * 2 ** i, 512), bn=i > 0)(x)
        skips.append(x)
    for i, s in enumerate(reversed(skips[:-1])):
        x = up(min(64 * 2 ** (depth - 2 - i), 512), drop=i < 2)(x)
        x = layers.Concatenate()([x, s])
    out = layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh")(x)
    return keras.Model(inp, out, name="unet")


def patch_discriminator(size):
    a = layers.Input((size, size, 3))
    b = layers.Input((size, size, 3))
    x = layers.Concatenate()([a, b])
    x = down(64, False)(x)
    x = down(128)(x)
    x = down(256)(x)
    x = layers.Conv2D(1, 4, 1, "same")(x)
    return keras.Model([a, b], x, name="patchgan")
