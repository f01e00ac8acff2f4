import keras
from keras import layers

from .data import N_CLASSES


def cloud_net(image_size):
    inputs = keras.Input((image_size, image_size, 3))
    x = inputs
    for filters in (32, 64, 128):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(inputs, layers.Dense(N_CLASSES, activation="softmax")(x), name="cloud_net")
