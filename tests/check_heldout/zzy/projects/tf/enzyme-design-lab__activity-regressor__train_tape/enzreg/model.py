import keras
from keras import layers


def variant_cnn(length, channels=20):
    inp = keras.Input((length, channels))
    x = layers.Conv1D(64, 9, padding="same", activation="gelu")(inp)
    x = layers.Conv1D(64, 9, padding="same", dilation_rate=2, activation="gelu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(64, activation="gelu")(x)
    return keras.Model(inp, layers.Dense(1)(x))
