import keras
from keras import layers


def mlp_teacher(num_classes=10):
    return keras.Sequential([
        keras.Input((28, 28, 1)), layers.Conv2D(64, 3, activation="relu"), layers.Conv2D(128, 3, activation="relu"),
        layers.MaxPooling2D(), layers.Dropout(0.3), layers.Flatten(),
        layers.Dense(512, activation="relu"), layers.Dense(num_classes)], name="teacher")


def tiny_student(num_classes=10):
    return keras.Sequential([
        keras.Input((28, 28, 1)), layers.Conv2D(16, 3, strides=2, activation="relu"),
        layers.Flatten(), layers.Dense(64, activation="relu"), layers.Dense(num_classes)], name="student")
