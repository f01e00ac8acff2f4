import keras
from keras import layers


def landcover_net(n_bands=4, n_classes=10):
    return keras.Sequential([
        keras.Input((64, 64, n_bands)),
        layers.Conv2D(32, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu", padding="same"),
        layers.MaxPooling2D(),
        layers.Conv2D(128, 3, activation="relu", padding="same"),
        layers.GlobalAveragePooling2D(),
        layers.Dense(n_classes),
    ])
