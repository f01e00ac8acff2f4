import keras
from keras import layers


def conv4(input_shape, hidden=64):
    inp = keras.Input(input_shape)
    h = inp
    for _ in range(4):
        h = layers.Conv2D(hidden, 3, padding="same")(h)
        h = layers.BatchNormalization()(h)
        h = layers.ReLU()(h)
        h = layers.MaxPool2D(2, padding="same")(h)
    return keras.Model(inp, layers.Flatten()(h), name="conv4")
