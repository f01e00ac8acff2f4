import keras
from keras import layers


def build_model(hp, input_shape=(28, 28, 1), num_classes=10):
    inputs = keras.Input(shape=input_shape)
    x = inputs
    for b in range(hp["blocks"]):
        x = layers.Conv2D(hp["filters"] * (2 ** b), 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.Flatten()(x)
    x = layers.Dense(hp["dense"], activation="relu")(x)
    x = layers.Dropout(hp["dropout"])(x)
    outputs = layers.Dense(num_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs, name="trial_model")
