import keras
from keras import layers


def conv_bn(x, filters, stride=1):
    x = layers.Conv2D(filters, 3, stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def convnext_ish(num_classes, image_size):
    inp = keras.Input((image_size, image_size, 3))
    x = conv_bn(inp, 64, 2)
    for filters in (64, 128, 256, 512):
        x = conv_bn(x, filters, 2)
        x = conv_bn(x, filters)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.2)(x)
    return keras.Model(inp, layers.Dense(num_classes)(x), name="face_cls")
