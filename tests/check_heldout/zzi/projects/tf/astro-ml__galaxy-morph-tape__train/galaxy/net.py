import keras
from keras import layers


def residual(x, filters, stride):
    shortcut = x
    x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("swish")(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
    return layers.Activation("swish")(layers.Add()([x, shortcut]))


def morph_resnet(size=64, bands=3, n_classes=5):
    inp = keras.Input((size, size, bands))
    x = layers.Conv2D(32, 3, padding="same")(inp)
    for filters, stride in [(32, 1), (64, 2), (128, 2), (128, 1)]:
        x = residual(x, filters, stride)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(n_classes)(x), name="morph_resnet")
