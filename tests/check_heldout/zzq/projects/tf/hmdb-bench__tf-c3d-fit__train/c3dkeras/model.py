import keras
from keras import layers

from . import config as C


def c3d_small():
    return keras.Sequential([
        keras.Input((C.CLIP_LEN, C.CROP, C.CROP, 3)),
        layers.Conv3D(16, 3, padding="same", activation="relu"),
        layers.MaxPooling3D((1, 2, 2)),
        layers.Conv3D(32, 3, padding="same", activation="relu"),
        layers.MaxPooling3D(2),
        layers.GlobalAveragePooling3D(),
        layers.Dense(64, activation="relu"),
        layers.Dropout(0.5),
        layers.Dense(C.NUM_CLASSES, activation="softmax"),
    ], name="c3d_small")
