import keras
from keras import layers

# Diversity comes from the random init and from slightly different widths.
WIDTHS = [(64, 128), (64, 128), (96, 192), (96, 192), (128, 256)]


def member(i, input_shape=(32, 32, 3), num_classes=10):
    w1, w2 = WIDTHS[i % len(WIDTHS)]
    return keras.Sequential([
        keras.Input(input_shape),
        layers.Conv2D(w1, 3, padding="same", activation="relu"),
        layers.Conv2D(w1, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),
        layers.Conv2D(w2, 3, padding="same", activation="relu"),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.3),
        layers.Dense(num_classes),
    ], name=f"member_{i}")
