import keras
from keras import layers

from .registry import MODELS


def basic_block(x, filters, stride):
    y = layers.Conv2D(filters, 3, stride, padding='same', use_bias=False)(x)
    y = layers.Activation('relu')(layers.BatchNormalization()(y))
    y = layers.Conv2D(filters, 3, padding='same', use_bias=False)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or x.shape[-1] != filters:
        x = layers.BatchNormalization()(layers.Conv2D(filters, 1, stride, use_bias=False)(x))
    return layers.Activation('relu')(layers.Add()([x, y]))


@MODELS.register_module()
def ResNetCifar(depth=18, num_classes=10):
    blocks = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3]}[depth]
    inputs = keras.Input((32, 32, 3))
    x = layers.Activation('relu')(layers.BatchNormalization()(layers.Conv2D(64, 3, padding='same', use_bias=False)(inputs)))
    for stage, n in enumerate(blocks):
        for i in range(n):
            x = basic_block(x, 64 * 2 ** stage, 2 if stage > 0 and i == 0 else 1)
    x = layers.GlobalAveragePooling2D()(x)
    outputs = layers.Dense(num_classes, activation='softmax', dtype='float32')(x)
    return keras.Model(inputs, outputs, name=f'resnet{depth}_cifar')


def build_classifier(cfg):
    return MODELS.build(cfg)
