import keras
from keras import layers


def small_cnn(img_size, n_classes):
    return keras.Sequential(
        [
            keras.Input((img_size, img_size, 1)),
            layers.RandomRotation(0.05),
            layers.Conv2D(32, 3, activation="relu"),
            layers.MaxPool2D(),
            layers.Conv2D(64, 3, activation="relu"),
            layers.MaxPool2D(),
            layers.Conv2D(128, 3, activation="relu"),
            layers.GlobalAveragePooling2D(),
            layers.Dense(64, activation="relu"),
            layers.Dense(n_classes, activation="softmax"),
        ],
        name="xray_cnn",
    )
