import keras
from keras import layers


def conv_bn(x, filters, stride=1):
    x = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def resnet_like(width=64, num_classes=10):
    inputs = keras.Input((32, 32, 3))
    x = conv_bn(inputs, width)
    for i, mult in enumerate([1, 2, 4]):
        stride = 1 if i == 0 else 2
        shortcut = layers.Conv2D(width * mult, 1, strides=stride, use_bias=False)(x)
        y = conv_bn(x, width * mult, stride)
        y = conv_bn(y, width * mult)
        x = layers.Add()([shortcut, y])
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(num_classes)(x)
    return keras.Model(inputs, outputs, name=f"resnet_w{width}")
