import keras
from keras import layers


def build_lstm(seq_len, n_features, units=64, dropout=0.2):
    inp = keras.Input((seq_len, n_features))
    h = layers.LSTM(units, return_sequences=True)(inp)
    h = layers.LSTM(units)(h)
    h = layers.Dropout(dropout)(h)
    out = layers.Dense(1)(h)
    return keras.Model(inp, out, name="wind_lstm")
