import keras
from keras import layers


def make_mlp(in_dim, sizes, name):
    inp = keras.Input((in_dim,))
    h = inp
    for i, units in enumerate(sizes):
        h = layers.Dense(units, use_bias=i == len(sizes) - 1)(h)
        if i < len(sizes) - 1:
            h = layers.BatchNormalization()(h)
            h = layers.ReLU()(h)
    return keras.Model(inp, h, name=name)
