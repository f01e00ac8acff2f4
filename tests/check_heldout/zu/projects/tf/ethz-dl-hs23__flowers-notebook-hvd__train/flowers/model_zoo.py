import keras
from keras import layers


def small_convnet(num_classes, img=160):
    return keras.Sequential([
        keras.Input((img, img, 3)),
        layers.Conv2D(32, 3, strides=2, activation="relu"),
        layers.Conv2D(64, 3, strides=2, activation="relu"),
        layers.Conv2D(128, 3, strides=2, activation="relu"),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.3),
        layers.Dense(num_classes),
    ])
