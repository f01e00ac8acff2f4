import keras
from keras import layers


def mlp_forecaster(input_dim, output_dim, hidden=(256, 128), dropout=0.1):
    model = keras.Sequential(name="mlp_forecaster")
    model.add(keras.Input(shape=(input_dim,)))
    model.add(layers.Normalization(axis=-1, name="norm"))
    for units in hidden:
        model.add(layers.Dense(units, activation="gelu"))
        model.add(layers.Dropout(dropout))
    model.add(layers.Dense(output_dim))
    return model
