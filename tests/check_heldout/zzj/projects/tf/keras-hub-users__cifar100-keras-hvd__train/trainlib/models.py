import keras
from keras import layers


def _conv_bn(x, filters, stride=1):
    x = layers.Conv2D(filters, 3, strides=stride, padding='same', use_bias=False,
                      kernel_regularizer=keras.regularizers.l2(5e-4))(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def _res_block(x, filters, stride):
    shortcut = x
    y = _conv_bn(x, filters, stride)
    y = layers.Conv2D(filters, 3, padding='same', use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or shortcut.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False)(shortcut)
        shortcut = layers.BatchNormalization()(shortcut)
    return layers.ReLU()(layers.add([y, shortcut]))


def resnet(depth, num_classes=100, width=16):
    n = (depth - 2) // 6
    inputs = keras.Input((32, 32, 3))
    x = _conv_bn(inputs, width)
    for stage, filters in enumerate([width, width * 2, width * 4]):
        for i in range(n):
            x = _res_block(x, filters, 2 if (stage > 0 and i == 0) else 1)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, layers.Dense(num_classes)(x), name='resnet%d' % depth)


MODEL_NAMES = {
    'resnet20': lambda: resnet(20),
    'resnet56': lambda: resnet(56),
    'wrn16_4': lambda: resnet(16, width=64),
}


def build_model(name):
    return MODEL_NAMES[name]()
