import keras
from keras import layers


def lstm_forecaster(lookback=168, horizon=24, units=64, dropout=0.1):
    inp = keras.Input((lookback, 1))
    x = layers.LSTM(units, return_sequences=True, dropout=dropout)(inp)
    x = layers.LSTM(units, dropout=dropout)(x)
    x = layers.Dense(units, activation="gelu")(x)
    return keras.Model(inp, layers.Dense(horizon)(x), name="lstm_forecaster")
