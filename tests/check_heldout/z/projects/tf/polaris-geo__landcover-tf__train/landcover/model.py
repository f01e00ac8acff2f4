import keras
from keras import layers


def _res_block(x, filters, stride=1):
    shortcut = x
    x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
    return layers.ReLU()(layers.Add()([x, shortcut]))


def patch_resnet(num_classes=10, bands=13):
    inp = keras.Input((32, 32, bands))
    x = layers.Conv2D(32, 3, padding="same")(inp)
    for filters, stride in [(32, 1), (64, 2), (128, 2)]:
        x = _res_block(x, filters, stride)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x), name="patch_resnet")
