import keras
from keras import layers


def res_block(x, filters, stride=1):
    shortcut = x
    x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)
    return layers.ReLU()(layers.Add()([x, shortcut]))


def tiny_resnet(tile, n_bands, n_classes):
    inp = keras.Input((tile, tile, n_bands))
    x = layers.Conv2D(32, 3, padding="same")(inp)
    for f, s in [(32, 1), (64, 2), (128, 2), (256, 2)]:
        x = res_block(x, f, s)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    return keras.Model(inp, layers.Dense(n_classes)(x), name="s2_tiny_resnet")
