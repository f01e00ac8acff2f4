from tensorflow import keras


def lstm_forecaster(history, n_features, horizon, units=128):
    inp = keras.Input((history, n_features))
    x = keras.layers.LSTM(units, return_sequences=True)(inp)
    x = keras.layers.LSTM(units)(x)
    x = keras.layers.Dense(units, activation="relu")(x)
    return keras.Model(inp, keras.layers.Dense(horizon)(x), name="lstm_forecaster")
