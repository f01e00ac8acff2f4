import keras
from keras import layers, regularizers


def _block(x, filters, stride, wd):
    reg = regularizers.l2(wd)
    y = layers.Conv2D(filters, 3, stride, padding="same", use_bias=False, kernel_regularizer=reg)(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.Conv2D(filters, 3, 1, padding="same", use_bias=False, kernel_regularizer=reg)(y)
    y = layers.BatchNormalization()(y)
    if stride != 1 or x.shape[-1] != filters:
        x = layers.Conv2D(filters, 1, stride, use_bias=False, kernel_regularizer=reg)(x)
        x = layers.BatchNormalization()(x)
    return layers.ReLU()(layers.Add()([x, y]))


def resnet20(num_classes=10, weight_decay=1e-4):
    inp = keras.Input((32, 32, 3))
    x = layers.Conv2D(16, 3, padding="same", use_bias=False, kernel_regularizer=regularizers.l2(weight_decay))(inp)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    for i, filters in enumerate((16, 32, 64)):
        for j in range(3):
            x = _block(x, filters, 2 if (i > 0 and j == 0) else 1, weight_decay)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(num_classes)(x), name="resnet20")
