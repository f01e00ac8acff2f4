import keras
from keras import layers


def mel_cnn(input_shape, n_species, base=24):
    inp = keras.Input(input_shape)
    x = layers.BatchNormalization()(inp)
    for i in range(4):
        x = layers.Conv2D(base * 2 ** i, 3, padding="same", activation="relu")(x)
        x = layers.Conv2D(base * 2 ** i, 3, padding="same", activation="relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalMaxPooling2D()(x)
    x = layers.Dropout(0.4)(x)
    return keras.Model(inp, layers.Dense(n_species, activation="sigmoid")(x))
