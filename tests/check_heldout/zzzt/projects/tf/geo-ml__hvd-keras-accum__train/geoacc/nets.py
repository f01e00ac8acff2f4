import keras
from keras import layers


def patch_cnn(size, bands, classes):
    m = keras.Sequential([
        keras.Input((size, size, bands)),
        layers.Conv2D(64, 3, padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.MaxPooling2D(),
        layers.Conv2D(128, 3, padding="same", activation="relu"),
        layers.BatchNormalization(),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.3),
        layers.Dense(classes),
        layers.Activation("linear", dtype="float32"),
    ])
    return m
