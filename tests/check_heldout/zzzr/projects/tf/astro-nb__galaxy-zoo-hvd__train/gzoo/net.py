import keras
from keras import layers

from .pipeline import N_TARGETS


def make_net(img):
    return keras.Sequential([
        keras.Input((img, img, 3)),
        layers.Conv2D(16, 5, strides=2, activation="relu"),
        layers.Conv2D(32, 3, strides=2, activation="relu"),
        layers.GlobalAveragePooling2D(),
        layers.Dense(64, activation="relu"),
        layers.Dense(N_TARGETS, activation="sigmoid"),
    ])
