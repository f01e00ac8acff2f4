import keras
from keras import layers


def conv_block(x, filters, stride):
    x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def build_encoder(width=64, input_shape=(32, 32, 3)):
    inp = keras.Input(input_shape)
    x = conv_block(inp, width, 1)
    for mult, stride in ((1, 1), (2, 2), (4, 2), (8, 2)):
        x = conv_block(x, width * mult, stride)
        x = conv_block(x, width * mult, 1)
    out = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, out, name="encoder")


def build_projector(in_dim, hidden=512, out_dim=128):
    inp = keras.Input((in_dim,))
    x = layers.Dense(hidden, use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    return keras.Model(inp, layers.Dense(out_dim)(x), name="projector")
