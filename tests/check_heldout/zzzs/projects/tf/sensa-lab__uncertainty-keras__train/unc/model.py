import keras
from keras import layers


def build_cnn(input_shape, n_classes):
    inp = keras.Input(input_shape)
    h = layers.Conv2D(32, 3, padding="same", activation="relu")(inp)
    h = layers.MaxPooling2D()(h)
    h = layers.Conv2D(64, 3, padding="same", activation="relu")(h)
    h = layers.GlobalAveragePooling2D()(h)
    h = layers.Dropout(0.3)(h)
    return keras.Model(inp, layers.Dense(n_classes, activation="softmax")(h))
