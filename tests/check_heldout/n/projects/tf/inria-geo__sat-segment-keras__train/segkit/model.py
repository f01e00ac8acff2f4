import keras
from keras import layers


def conv_block(x, f):
    for _ in range(2):
        x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
    return x


def build_unet(size=256, base=32, depth=4):
    inp = keras.Input((size, size, 3))
    skips, x = [], inp
    for d in range(depth):
        x = conv_block(x, base * 2 ** d)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = conv_block(x, base * 2 ** depth)
    for d in reversed(range(depth)):
        x = layers.Conv2DTranspose(base * 2 ** d, 2, strides=2, padding="same")(x)
        x = layers.Concatenate()([x, skips[d]])
        x = conv_block(x, base * 2 ** d)
    out = layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="unet")
