import keras
from keras import layers


def _block(x, f, stride):
    y = layers.Conv2D(f, 3, strides=stride, padding="same", use_bias=False)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.Conv2D(f, 3, padding="same", use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or x.shape[-1] != f:
        x = layers.Conv2D(f, 1, strides=stride, use_bias=False)(x)
    return layers.ReLU()(layers.Add()([x, y]))


def build_model(cfg):
    inp = keras.Input((32, 32, 3))
    x = layers.Conv2D(cfg.width, 3, padding="same")(inp)
    for i, f in enumerate([cfg.width, 2 * cfg.width, 4 * cfg.width]):
        x = _block(x, f, 1 if i == 0 else 2)
        x = _block(x, f, 1)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(10, activation="softmax")(x))
