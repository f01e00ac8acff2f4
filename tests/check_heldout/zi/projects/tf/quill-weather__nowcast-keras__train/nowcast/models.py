import keras
from keras import layers

from . import config


def conv_gru(n_features=len(config.FEATURES), units=128):
    inp = keras.Input((config.INPUT_STEPS, n_features))
    x = layers.Conv1D(64, 5, padding="causal", activation="relu")(inp)
    x = layers.Conv1D(64, 5, padding="causal", dilation_rate=2, activation="relu")(x)
    x = layers.GRU(units, return_sequences=True)(x)
    x = layers.GRU(units)(x)
    x = layers.Dense(256, activation="relu")(x)
    out = layers.Dense(config.OUTPUT_STEPS)(x)
    return keras.Model(inp, out, name="conv_gru_nowcast")
