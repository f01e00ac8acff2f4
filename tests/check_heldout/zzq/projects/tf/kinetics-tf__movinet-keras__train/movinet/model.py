import keras
from keras import layers


def causal_block(x, filters, stride):
    y = layers.Conv3D(filters, (3, 1, 1), padding="same", use_bias=False)(x)
    y = layers.Conv3D(filters, (1, 3, 3), strides=(1, stride, stride), padding="same", use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    return layers.Activation("swish")(y)


def build_movinet(cfg):
    inp = keras.Input((cfg.frames, cfg.size, cfg.size, 3))
    x = layers.Conv3D(8, (1, 3, 3), strides=(1, 2, 2), padding="same")(inp)
    x = causal_block(x, 16, 2)
    x = causal_block(x, 32, 2)
    x = layers.GlobalAveragePooling3D()(x)
    x = layers.Dropout(0.2)(x)
    out = layers.Dense(cfg.num_classes)(x)
    return keras.Model(inp, out, name="movinet_a0_tiny")
